import type { Db } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { markLapsedExecutionsUnknown } from "@/lib/db/statements/executions/mark-lapsed-executions-unknown";
import { readLapsedExecutions } from "@/lib/db/statements/executions/read-lapsed-executions";
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
  const lapsed = await readLapsedExecutions(db, { limit: options.limit ?? 50 });
  const marked = await markLapsedExecutionsUnknown(db, {
    message: UNKNOWN_OUTCOME,
    rows: lapsed.map((execution) => ({
      id: execution.id,
      event: auditBodyOf({
        tenantId: execution.tenantId, actor: SYSTEM_ACTOR, type: "execution.unknown", outcome: "error", subject: { type: "execution", id: execution.id },
        actionId: execution.actionId, tool: execution.tool, requester: execution.requesterLabel, status: "unknown",
        data: { executionId: execution.id, revision: execution.revision, previousOwner: execution.claimedBy, error: UNKNOWN_OUTCOME },
      }),
    })),
  });
  for (const tenantId of new Set(marked.map((row) => row.tenantId))) void requestSeal(db, tenantId);
  return marked.map((row) => ({ executionId: row.executionId, state: "unknown" as const }));
}
