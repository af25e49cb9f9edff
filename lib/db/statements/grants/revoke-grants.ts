import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { mayDecideNowSql } from "@/lib/db/statements/actions/approval-rules";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Revokes grants locked by lockActiveGrants, each with its event, and moves the tenant's grants
 * version (every console looks for grants again), in one statement — only if `byUserId` may decide
 * actions or is an admin now. Returns the ids revoked; none when the member may not.
 */
export async function revokeGrants(
  tx: SqlClient,
  input: { tenantId: string; byUserId: string; reason: string | null; revoked: Array<{ id: string; event: AttestedAuditBody }> },
): Promise<{ allowed: boolean; revoked: string[] }> {
  const tenant = Prisma.sql`${input.tenantId}::uuid`;
  const member = Prisma.sql`${input.byUserId}::uuid`;
  const rows = await query<{ allowed: boolean; id: string | null }>(tx, Prisma.sql`
    WITH may AS (SELECT (${mayDecideNowSql(tenant, member)} OR ${adminNowSql(tenant, member)}) AS allowed),
    input AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(input.revoked)}::jsonb) AS x(id uuid, event jsonb)),
    revoked AS (
      UPDATE "Grant" g SET status = 'revoked', "revokedAt" = now(), "revokedById" = ${member}, "revokedReason" = ${input.reason}::text
      FROM input i, may
      WHERE may.allowed AND g.id = i.id AND g."tenantId" = ${tenant} AND g.status = 'active'
      RETURNING g.id, i.event
    ),
    bump AS (UPDATE "Tenant" t SET "grantsVersion" = t."grantsVersion" + 1 WHERE t.id = ${tenant} AND EXISTS (SELECT 1 FROM revoked)),
    audit AS (${auditInsertFromJson(Prisma.sql`revoked`, Prisma.sql`revoked.event`, { order: Prisma.sql`revoked.id` })})
    SELECT may.allowed, revoked.id FROM may LEFT JOIN revoked ON true`);
  return { allowed: rows[0]?.allowed ?? false, revoked: rows.flatMap((r) => (r.id ? [r.id] : [])) };
}
