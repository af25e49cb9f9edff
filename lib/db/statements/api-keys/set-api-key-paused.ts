import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type ApiKeyPauseChange = { outcome: "done"; id: string; pausedAt: Date | null; changed: boolean } | { outcome: "not_admin" } | { outcome: "not_found" };

/**
 * Pauses or resumes one API key of the tenant (database clock) with its event, in one statement;
 * of two clicks at once the second finds it done (`changed` false). Admin now only
 * (admin-rules.ts). Run it in a transaction, locked as a revocation is (record-api-key-revocation.ts).
 */
export async function setApiKeyPaused(
  tx: SqlClient,
  input: { tenantId: string; apiKeyId: string; paused: boolean; byUserId: string; event: AttestedAuditBody },
): Promise<ApiKeyPauseChange> {
  await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.byUserId, sessionId: null });
  const [row] = await query<{ admin: boolean; id: string | null; pausedAt: Date | null; changed: boolean | null }>(tx, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    target AS (
      SELECT id, "pausedAt" IS NOT NULL AS was_paused FROM "ApiKey"
      WHERE id = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    updated AS (
      UPDATE "ApiKey" k SET "pausedAt" = CASE WHEN ${input.paused} THEN COALESCE(k."pausedAt", date_trunc('milliseconds', now())) END
      FROM target WHERE k.id = target.id AND (SELECT ok FROM admin)
      RETURNING k.id, k."pausedAt", target.was_paused <> ${input.paused} AS changed
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM updated u WHERE u.changed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT (SELECT ok FROM admin) AS admin, u.id::text AS id, u."pausedAt", u.changed FROM (SELECT 1) one LEFT JOIN updated u ON true`);
  if (!row.admin) return { outcome: "not_admin" };
  if (row.id === null || row.changed === null) return { outcome: "not_found" };
  return { outcome: "done", id: row.id, pausedAt: row.pausedAt, changed: row.changed };
}
