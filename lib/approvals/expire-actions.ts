import type { Db } from "@/lib/db/client";
import { appendAuditEvent, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import { markTaskRunnable } from "@/lib/approvals/task-wakeup";

/**
 * The sweeper: marks pending and approved-but-unexecuted actions whose window has closed (by the
 * database clock) as `expired`, audits each and wakes their tasks. Safe to run from any number of
 * processes at once (SKIP LOCKED). Returns how many it expired.
 */
export async function expireDueActions(db: Db, options: { limit?: number; actor?: AuditActor } = {}): Promise<number> {
  const limit = options.limit ?? 500;
  const expired = await db.$transaction(async (tx) => {
    const expired = await tx.$queryRaw<
      Array<{ id: string; tenantId: string; tool: string; taskId: string | null; requesterLabel: string; riskLevel: "low" | "medium" | "high" | "critical"; currentRevision: number; previous: string }>
    >`
      WITH due AS (
        SELECT id, status::text AS previous FROM "Action"
        WHERE status IN ('pending', 'approved') AND "expiresAt" <= now()
        ORDER BY "expiresAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      UPDATE "Action" a SET status = 'expired', "decidedAt" = now(), "updatedAt" = now(),
        "statusReason" = 'The approval window closed before ' || CASE WHEN due.previous = 'pending' THEN 'a decision.' ELSE 'execution.' END
      FROM due WHERE a.id = due.id
      RETURNING a.id, a."tenantId", a.tool, a."taskId", a."requesterLabel", a."riskLevel"::text AS "riskLevel", a."currentRevision", due.previous`;
    for (const row of expired) {
      await appendAuditEvent(tx, {
        tenantId: row.tenantId, actor: options.actor ?? SYSTEM_ACTOR, type: "action.expired", outcome: "ok",
        subject: { type: "action", id: row.id }, actionId: row.id, tool: row.tool, riskLevel: row.riskLevel,
        requester: row.requesterLabel, status: "expired", data: { revision: row.currentRevision, previousStatus: row.previous },
      });
      await markTaskRunnable(tx, row.taskId);
    }
    return expired;
  });
  for (const tenantId of new Set(expired.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return expired.length;
}
