import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { isUuid } from "@/lib/db/uuid";
import type { JsonObject } from "@/lib/canonical/json-value";

export type ReceiptSubject = {
  id: string;
  status: string;
  expiresAt: Date | null;
  revisionId: string;
  revision: number;
  payloadHash: string;
  policyVersion: number;
  /** The revision's policy decision asked for passkey-signed approvals. */
  signatureRequired: boolean;
  /** The request snapshot's stored hash, or null when the revision has none. */
  snapshotHash: string | null;
  /** What a standing grant's terms are bound to (lib/grants/grant-terms.ts). */
  tenantId: string;
  tool: string;
  apiKeyId: string | null;
  taskId: string | null;
  args: JsonObject | null;
};

/** An action of the tenant with its current revision: what an approval receipt names. Null: no such action. */
export async function readReceiptSubject(q: Queryable, input: { tenantId: string; actionId: string }): Promise<ReceiptSubject | null> {
  if (!isUuid(input.actionId)) return null;
  const [row] = await query<ReceiptSubject>(q, Prisma.sql`
    SELECT a.id, a.status::text AS status, a."expiresAt", r.id AS "revisionId", r.revision, r."payloadHash", r."policyVersion",
      (r."policyDecision"->>'signature') IS NOT DISTINCT FROM 'required' AS "signatureRequired",
      (SELECT s.hash FROM "Snapshot" s WHERE s."revisionId" = r.id AND s.phase = 'request' LIMIT 1) AS "snapshotHash",
      a."tenantId", a.tool, a."requesterApiKeyId" AS "apiKeyId", a."taskId", r.args
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision" AND r.status = 'current'
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid`);
  return row ?? null;
}
