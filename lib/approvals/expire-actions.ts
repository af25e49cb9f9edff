import type { Db } from "@/lib/db/client";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { expireDueActions as expireDue } from "@/lib/db/statements/expire-due-actions";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";

/**
 * The sweeper: marks pending and approved-but-unexecuted actions whose window has closed (by the
 * database clock) as `expired`, audits each and wakes their tasks, in one statement. Safe to run
 * from any number of processes at once (SKIP LOCKED). Returns how many it expired.
 */
export async function expireDueActions(db: Db, options: { limit?: number; actor?: AuditActor } = {}): Promise<number> {
  const expired = await expireDue(db, { limit: options.limit ?? 500, actor: options.actor ?? SYSTEM_ACTOR });
  for (const tenantId of new Set(expired.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return expired.length;
}
