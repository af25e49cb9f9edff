import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Pauses or resumes one API key of the tenant (database clock) in one statement with its event.
 * The key's row is locked first, so of two clicks at once one changes and audits and the other
 * finds it done (`changed` false, no second event). Null: no such key in this tenant.
 */
export async function setApiKeyPaused(
  q: Queryable,
  input: { tenantId: string; apiKeyId: string; paused: boolean; event: AttestedAuditBody },
): Promise<{ id: string; pausedAt: Date | null; changed: boolean } | null> {
  const [row] = await query<{ id: string; pausedAt: Date | null; changed: boolean }>(q, Prisma.sql`
    WITH target AS (
      SELECT id, "pausedAt" IS NOT NULL AS was_paused FROM "ApiKey"
      WHERE id = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    updated AS (
      UPDATE "ApiKey" k SET "pausedAt" = CASE WHEN ${input.paused} THEN COALESCE(k."pausedAt", date_trunc('milliseconds', now())) END
      FROM target WHERE k.id = target.id
      RETURNING k.id, k."pausedAt", target.was_paused <> ${input.paused} AS changed
    ),
    events AS (SELECT ${JSON.stringify(input.event)}::jsonb AS event FROM updated u WHERE u.changed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id, "pausedAt", changed FROM updated`);
  return row ?? null;
}
