import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { agentsPauseGateSql } from "@/lib/db/statements/tenant/agent-pause-rules";

export type AgentsPauseChange = { outcome: "done"; changed: boolean; pausedAt: Date | null; pausedSince: Date | null } | { outcome: "not_admin" } | { outcome: "not_found" };

/**
 * Pauses or resumes a tenant's agents with its event; a resume wakes the tenant's unfinished
 * tasks. Of two clicks at once the second finds it done (`changed` false; a pause keeps its first
 * time, author and reason). Admin now only (admin-rules.ts). Run it in a transaction; its locks
 * (membership, gate, tenant row) and their order: docs/DESIGN.md, "Standing is judged when the act
 * runs".
 */
export async function setAgentsPaused(
  q: SqlClient,
  input: { tenantId: string; paused: boolean; byUserId: string; reason: string | null; event: (pausedSince: Date | null) => AttestedAuditBody },
): Promise<AgentsPauseChange> {
  await lockActingMembership(q, { tenantId: input.tenantId, userId: input.byUserId, sessionId: null });
  // Executions under way finish first; one that starts now waits for this and then sees it.
  await query(q, Prisma.sql`SELECT ${agentsPauseGateSql(Prisma.sql`${input.tenantId}::uuid`, "exclusive")}`);
  // FOR NO KEY UPDATE lets foreign-key checks on the tenant go on (FOR UPDATE could deadlock a
  // resume that wakes a task). The event needs the pause's start: read it under the same lock.
  const [row] = await query<{ pausedAt: Date | null; admin: boolean }>(q, Prisma.sql`
    SELECT "agentsPausedAt" AS "pausedAt", ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS admin
    FROM "Tenant" WHERE id = ${input.tenantId}::uuid FOR NO KEY UPDATE`);
  if (!row) return { outcome: "not_found" };
  if (!row.admin) return { outcome: "not_admin" };
  const changed = (row.pausedAt !== null) !== input.paused;
  const event = changed ? input.event(row.pausedAt) : null;
  const [updated] = await query<{ pausedAt: Date | null }>(q, Prisma.sql`
    WITH updated AS (
      UPDATE "Tenant" t SET
        "agentsPausedAt" = CASE WHEN ${input.paused} THEN COALESCE(t."agentsPausedAt", date_trunc('milliseconds', now())) END,
        "agentsPausedById" = CASE WHEN ${input.paused} THEN COALESCE(t."agentsPausedById", ${input.byUserId}::uuid) END,
        "agentsPausedReason" = CASE WHEN ${input.paused} THEN CASE WHEN t."agentsPausedAt" IS NULL THEN ${input.reason}::text ELSE t."agentsPausedReason" END END
      WHERE t.id = ${input.tenantId}::uuid
      RETURNING t.id, t."agentsPausedAt"
    ),
    woken AS (${wakeTaskSql(
      Prisma.sql`SELECT id FROM "Task" WHERE "tenantId" = ${input.tenantId}::uuid`,
      Prisma.sql`${changed && !input.paused}`,
    )}),
    events AS (SELECT ${event === null ? null : JSON.stringify(event)}::jsonb AS event FROM updated WHERE ${event !== null}),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT "agentsPausedAt" AS "pausedAt" FROM updated`);
  return { outcome: "done", changed, pausedAt: updated?.pausedAt ?? null, pausedSince: row.pausedAt };
}
