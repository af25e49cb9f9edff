import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditCte } from "@/lib/db/statements/insert-audit-events";

/**
 * Version `baseVersion + 1` of the tenant's policy, with its `policy.saved` event, in one
 * statement — written only if `baseVersion` is still the newest version (0: none yet), so of two
 * saves from the same version one wins and the other writes nothing (the unique (tenant, version)
 * catches a save that raced past the check). Policy rows are never updated. False: not written.
 */
export async function insertPolicyVersion(
  q: Queryable,
  input: { id: string; tenantId: string; baseVersion: number; document: JsonObject; comment: string | null; createdById: string; saved: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH saved AS (
      INSERT INTO "ToolPolicy" (id, "tenantId", version, document, comment, "createdById", "createdAt")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.baseVersion + 1}::int, ${JSON.stringify(input.document)}::jsonb, ${input.comment},
        ${input.createdById}::uuid, now()
      WHERE COALESCE((SELECT max(version) FROM "ToolPolicy" WHERE "tenantId" = ${input.tenantId}::uuid), 0) = ${input.baseVersion}::int
      ON CONFLICT ("tenantId", version) DO NOTHING
      RETURNING id
    ),
    ${auditCte(input.saved, { gate: "saved" })}
    SELECT id FROM saved`);
  return rows.length === 1;
}
