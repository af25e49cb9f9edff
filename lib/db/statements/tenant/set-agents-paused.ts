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
 * Pauses or resumes a tenant's agents in one statement with its audit event. The tenant's row is
 * locked first (FOR NO KEY UPDATE: the pause changes no key, so transactions that write rows
 * referencing the tenant — whose foreign-key checks share its key — go on; FOR UPDATE would make a
 * resume that waits to wake a task deadlock with the task's holder writing such a row), so of two
 * clicks at once one changes and audits and the other finds it done
 * (`changed` false, no second event; a pause keeps its first time, author and reason). A resume
 * also wakes the tenant's unfinished tasks, which a pause left where they stopped. The read under
 * the lock also asks whether `byUserId` is an admin now (admin-rules.ts): one demoted after their
 * request passed the boundary changes nothing. Run it in a transaction: the locks are held from
 * the read to the write. The admin's membership is share-locked first, in a statement of its own
 * (lockActingMembership, the lock order), then the stop button's gate exclusively
 * (agentsPauseGateSql): the executions under way end first, and one that starts meanwhile waits and
 * then sees the pause. So the pause never holds the gate while it waits for a role change — which
 * may itself be waiting for an execution that waits for the gate.
 */
export async function setAgentsPaused(
  q: SqlClient,
  input: { tenantId: string; paused: boolean; byUserId: string; reason: string | null; event: (pausedSince: Date | null) => AttestedAuditBody },
): Promise<AgentsPauseChange> {
  await lockActingMembership(q, { tenantId: input.tenantId, userId: input.byUserId, sessionId: null });
  // Executions under way finish first; one that starts now waits for this and then sees it.
  await query(q, Prisma.sql`SELECT ${agentsPauseGateSql(Prisma.sql`${input.tenantId}::uuid`, "exclusive")}`);
  // The event needs the pause's start, which only the row knows: read it under the same lock.
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
