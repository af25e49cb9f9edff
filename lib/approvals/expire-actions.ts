import type { Db } from "@/lib/db/client";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { expireDueActions as expireDue } from "@/lib/db/statements/actions/expire-due-actions";
import { readDueActions } from "@/lib/db/statements/actions/read-due-actions";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";

/**
 * The sweeper: marks pending and approved-but-unexecuted actions whose window has closed (by the
 * database clock) as `expired`, audits each and wakes their tasks. It reads what is due, writes
 * each event here (events carry the console's MAC), and expires in one statement only what is
 * still due as read. Safe to run from any number of processes at once (SKIP LOCKED). Returns how
 * many it expired.
 */
export async function expireDueActions(db: Db, options: { limit?: number; actor?: AuditActor } = {}): Promise<number> {
  const actor = options.actor ?? SYSTEM_ACTOR;
  const due = await readDueActions(db, { limit: options.limit ?? 500 });
  const expired = await expireDue(db, due.map((action) => ({
    id: action.id, previous: action.previous, revision: action.revision,
    event: auditBodyOf({
      tenantId: action.tenantId, actor, type: "action.expired", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "expired",
      data: { revision: action.revision, previousStatus: action.previous, detectedBy: "sweeper" },
    }),
  })));
  for (const tenantId of new Set(expired.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return expired.length;
}
