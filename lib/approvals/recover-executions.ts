import type { Db } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { markLapsedExecutionsUnknown } from "@/lib/db/statements/mark-lapsed-executions-unknown";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";

const UNKNOWN_OUTCOME =
  "The process delivering this execution stopped before recording how it ended, and what it delivered cannot be checked from here. A person must confirm what happened.";

/**
 * Executions whose process stopped renewing their lease mid-delivery (it crashed) are marked
 * `unknown` for a person to resolve — never retried: a sandbox run or an email handed to SMTP may
 * already have happened. Effects inside the database never get here: they commit with their
 * claim or not at all (execute-action.ts). Any number of processes may run this at once.
 */
export async function recoverStaleExecutions(db: Db, options: { limit?: number } = {}): Promise<Array<{ executionId: string; state: "unknown" }>> {
  const marked = await markLapsedExecutionsUnknown(db, { limit: options.limit ?? 50, actor: SYSTEM_ACTOR, message: UNKNOWN_OUTCOME });
  for (const tenantId of new Set(marked.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return marked.map((row) => ({ executionId: row.executionId, state: "unknown" as const }));
}
