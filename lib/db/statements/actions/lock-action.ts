import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type SqlClient } from "@/lib/db/sql";
import { isUuid } from "@/lib/db/uuid";

export type LockedAction = {
  id: string;
  tenantId: string;
  kind: "tool" | "code";
  tool: string;
  status: string;
  consumed: boolean;
  taskId: string | null;
  requesterUserId: string | null;
  requesterApiKeyId: string | null;
  requesterLabel: string;
  /** The agent's stated reason (every revision's risk tags check it). */
  reason: string;
  /** The untrusted text its proposal was assessed against (every revision's risk tags check it). */
  untrustedValues: string[];
  riskLevel: RiskLevel;
  currentRevision: number;
  /** The action's copy of the current revision's hash. */
  payloadHash: string;
  /** The revision the action names as current, with its payload as stored. */
  revisionId: string;
  revision: number;
  revisionHash: string;
  args: JsonObject | null;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  policyVersion: number;
  /** The risk tags this revision was assessed with (lib/risk/risk-tag.ts's RiskTag, as stored). */
  riskTags: JsonObject[];
  /** The state the decision rests on, as read when this revision was proposed. */
  requestSnapshot: JsonObject | null;
};

/**
 * Locks one action of the tenant (FOR UPDATE, until the transaction ends) and reads it with its
 * current revision's stored payload and request snapshot. Everything that decides about an
 * action — a vote, a claim, an edit, a cancellation — holds this lock first, so each decides on
 * the latest committed state and they never interleave. Null: no such action in this tenant.
 */
export async function lockAction(tx: SqlClient, input: { tenantId: string; actionId: string }): Promise<LockedAction | null> {
  if (!isUuid(input.actionId)) return null;
  const [row] = await query<LockedAction>(tx, Prisma.sql`
    SELECT a.id, a."tenantId", a.kind::text AS kind, a.tool, a.status::text AS status, a."consumedAt" IS NOT NULL AS consumed,
      a."taskId", a."requesterUserId", a."requesterApiKeyId", a."requesterLabel", a.reason,
      coalesce(a."untrustedValues", ARRAY[]::text[]) AS "untrustedValues", a."riskLevel"::text AS "riskLevel",
      a."currentRevision", a."payloadHash",
      r.id AS "revisionId", r.revision, r."payloadHash" AS "revisionHash", r.args, r.code, r.language, r."sandboxSpec", r."policyVersion", r."riskTags",
      (SELECT s.data FROM "Snapshot" s WHERE s."revisionId" = r.id AND s.phase = 'request' LIMIT 1) AS "requestSnapshot"
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid
    FOR UPDATE OF a`);
  return row ?? null;
}
