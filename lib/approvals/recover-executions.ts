import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { findTool } from "@/lib/tools/registry";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import {
  executionLeaseMs,
  PROCESS_ID,
  recordExecution,
  runClaimedExecution,
  type Claimed,
  type ExecutionOutcome,
} from "@/lib/approvals/execute-action";

/**
 * Executions left `executing` by a crashed process (their lease lapsed) are taken over one at a
 * time with a conditional update. Where the effect honours the idempotency key they are retried
 * with the same key (so a refund that already happened is found, not repeated); otherwise they
 * are marked `unknown` for a person to resolve — never retried blindly.
 */
export async function recoverStaleExecutions(db: Db, options: { limit?: number } = {}): Promise<Array<{ executionId: string; state: ExecutionOutcome["state"] }>> {
  const stale = await db.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM "Execution" WHERE status = 'executing' AND "leaseExpiresAt" < now()
    ORDER BY "leaseExpiresAt" LIMIT ${options.limit ?? 50}`;
  const recovered: Array<{ executionId: string; state: ExecutionOutcome["state"] }> = [];
  for (const { id } of stale) {
    const taken = await db.$executeRaw`
      UPDATE "Execution" SET "claimedBy" = ${PROCESS_ID}, attempts = attempts + 1,
        "leaseExpiresAt" = now() + make_interval(secs => ${executionLeaseMs() / 1000})
      WHERE id = ${id}::uuid AND status = 'executing' AND "leaseExpiresAt" < now()`;
    if (taken === 0) continue; // another process took it
    const execution = await db.execution.findUniqueOrThrow({
      where: { id },
      include: { action: { include: { revisions: { where: { status: "current" } } } } },
    });
    const { action } = execution;
    const revision = action.revisions.find((r) => r.revision === execution.revision) ?? action.revisions[0];
    const args = toolArgsOf({ kind: action.kind, args: revision.args as JsonObject | null, code: revision.code, language: revision.language });
    const claimed: Claimed = {
      executionId: execution.id, actionId: action.id, idempotencyKey: execution.idempotencyKey, revision: execution.revision,
      args, sandboxSpec: revision.sandboxSpec as JsonObject | null, taskId: action.taskId, tool: action.tool,
      requesterLabel: action.requesterLabel,
    };
    const tool = findTool(action.tool);
    await appendAuditEvent(db, {
      tenantId: execution.tenantId, actor: SYSTEM_ACTOR, type: "execution.recovering", outcome: "ok",
      subject: { type: "execution", id }, actionId: action.id, tool: action.tool, requester: action.requesterLabel,
      status: "executing", data: { attempt: execution.attempts, previousOwner: null, retry: Boolean(tool?.honoursIdempotencyKey(args)) },
    });
    const outcome =
      tool && tool.honoursIdempotencyKey(args)
        ? await runClaimedExecution(db, execution.tenantId, claimed, { actor: SYSTEM_ACTOR })
        : await recordExecution(
            db,
            execution.tenantId,
            claimed,
            {
              state: "unknown",
              outcome: {
                ok: false,
                result: { error: "The process running this execution stopped before recording how it ended, and the effect cannot be checked safely. A person must confirm what happened." },
              },
              durationMs: 0,
            },
            SYSTEM_ACTOR,
          );
    recovered.push({ executionId: id, state: outcome.state });
  }
  return recovered;
}
