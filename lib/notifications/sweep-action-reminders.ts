import type { Db } from "@/lib/db/client";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import { readDueReminders, type DueReminder } from "@/lib/db/statements/notifications/read-due-reminders";
import { recordActionReminders, type ReminderToRecord } from "@/lib/db/statements/notifications/record-action-reminders";

function eventOf(due: DueReminder): ReminderToRecord["event"] {
  const common = {
    tenantId: due.tenantId, actor: SYSTEM_ACTOR, outcome: "ok" as const, subject: { type: "action", id: due.actionId },
    actionId: due.actionId, tool: due.tool, riskLevel: due.riskLevel, requester: due.requesterLabel, status: "pending",
  };
  if (due.kind === "escalated") {
    return auditBodyOf({
      ...common, type: "action.escalated",
      data: { revision: due.revision, role: due.role ?? "", afterSeconds: due.afterSeconds ?? 0, ...(due.channel ? { channel: due.channel } : {}) },
    });
  }
  return auditBodyOf({
    ...common, type: "action.expiry_warned",
    data: { revision: due.revision, roles: due.eligibleRoles, warnBeforeSeconds: due.warnBeforeSeconds ?? 0, expiresAt: due.expiresAt?.toISOString() ?? "" },
  });
}

/**
 * Fires the escalations and expiry warnings policy rules ask for that are due at `now` (default
 * the database clock), once per pending revision, each audited; the reviewer-email producer turns
 * the events into emails. Safe from any number of processes. Returns how many fired.
 */
export async function sweepActionReminders(db: Db, options: { now?: Date; limit?: number } = {}): Promise<number> {
  const due = await readDueReminders(db, { now: options.now ?? null, limit: options.limit ?? 500 });
  const fired = await recordActionReminders(db, due.map((reminder) => ({
    actionId: reminder.actionId, revision: reminder.revision, kind: reminder.kind, event: eventOf(reminder),
  })));
  for (const tenantId of new Set(fired.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return fired.length;
}
