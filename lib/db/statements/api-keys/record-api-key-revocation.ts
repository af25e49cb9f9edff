import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type ApiKeyRevocation = { outcome: "revoked"; id: string; revokedAt: Date; changed: boolean } | { outcome: "not_admin" } | { outcome: "not_found" };

/**
 * Revokes one key of the tenant from now (database clock) with its `api_key.revoked` event (built
 * whole by the caller: a key's name and prefix never change), in one statement. Of two at once the
 * second finds it revoked (`changed` false, original time kept, no second event). Admin now only
 * (admin-rules.ts). Run it in a transaction: lock order in docs/DESIGN.md, "Standing is judged
 * when the act runs".
 */
export async function recordApiKeyRevocation(
  tx: SqlClient,
  input: { tenantId: string; apiKeyId: string; byUserId: string; event: AttestedAuditBody },
): Promise<ApiKeyRevocation> {
  await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.byUserId, sessionId: null });
  const [row] = await query<{ admin: boolean; id: string | null; revokedAt: Date | null; changed: boolean | null }>(tx, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    target AS (
      SELECT id, "revokedAt" IS NULL AS active FROM "ApiKey"
      WHERE id = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    revoked AS (
      UPDATE "ApiKey" k SET "revokedAt" = COALESCE(k."revokedAt", date_trunc('milliseconds', now()))
      FROM target WHERE k.id = target.id AND (SELECT ok FROM admin)
      RETURNING k.id, k."revokedAt", target.active AS changed
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM revoked r WHERE r.changed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, r.id::text AS id, r."revokedAt", r.changed FROM (SELECT 1) one LEFT JOIN revoked r ON true`);
  if (!row.admin) return { outcome: "not_admin" };
  if (row.id === null || row.revokedAt === null || row.changed === null) return { outcome: "not_found" };
  return { outcome: "revoked", id: row.id, revokedAt: row.revokedAt, changed: row.changed };
}
