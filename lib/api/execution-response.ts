import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import type { Executor } from "@/lib/approvals/actors";
import { executeAction } from "@/lib/approvals/execute-action";
import { NDJSON_CONTENT_TYPE, outcomeAsRecorded, resultEvent, streamExecution, streamOf, type RecordedExecution } from "@/lib/api/stream-execution";

/** States in which a claim can run or replay; anything else is refused before any stream starts. */
const STREAMABLE_STATES = new Set(["approved", "executing", "succeeded", "failed", "unknown"]);

export type ExecutionRequest = {
  db: Db;
  tenantId: string;
  actionId: string;
  payloadHash: string;
  executor: Executor;
  actor: AuditActor;
  kind: "tool" | "code";
  /** The action's state and current hash as just read (expiry by the database clock applied). */
  state: string;
  currentHash: string;
  signal?: AbortSignal;
  /** "stream": NDJSON for every kind (browser route); "auto": JSON for tool calls, NDJSON for code. */
  format: "auto" | "stream";
  /** The agent's Idempotency-Key: echoed in a header and in tool results. */
  idempotencyKey?: string;
};

/**
 * Runs (or replays) one execution and answers it. A refusal known before the run (not approved,
 * expired, rejected…) is an HTTP error from the approval core's audited refusal, not a 200 stream;
 * a refusal discovered during the claim (a race) arrives as the stream's `error` line.
 */
export async function executionResponse(req: ExecutionRequest): Promise<Response> {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (req.idempotencyKey) headers["Idempotency-Key"] = req.idempotencyKey;
  const input = { tenantId: req.tenantId, actionId: req.actionId, payloadHash: req.payloadHash, executor: req.executor, actor: req.actor };
  if (req.kind === "code" || req.format === "stream") {
    const ndjson = { ...headers, "Content-Type": NDJSON_CONTENT_TYPE, "X-Accel-Buffering": "no" };
    const refusedUpFront = !STREAMABLE_STATES.has(req.state) || (req.state === "approved" && req.payloadHash !== req.currentHash);
    if (refusedUpFront) {
      // Throws the refusal (audited by the core); if the action became approved meanwhile, it runs.
      const outcome = await executeAction(req.db, { ...input, signal: req.signal });
      return new Response(streamOf([resultEvent(outcomeAsRecorded(outcome), false)]), { headers: ndjson });
    }
    return new Response(streamExecution(req.db, { ...input, signal: req.signal }), { headers: ndjson });
  }
  try {
    const outcome = await executeAction(req.db, { ...input, signal: req.signal });
    return Response.json({ id: req.actionId, ...toolBody(outcomeAsRecorded(outcome)), replayed: false, idempotencyKey: req.idempotencyKey }, { headers });
  } catch (error) {
    if (error instanceof AppError && error.code === "already_executed") {
      const recorded = (error.details as { execution?: RecordedExecution | null } | undefined)?.execution;
      if (recorded) return Response.json({ id: req.actionId, ...toolBody(recorded), replayed: true, idempotencyKey: req.idempotencyKey }, { headers });
    }
    throw error;
  }
}

function toolBody(execution: RecordedExecution) {
  return {
    executionId: execution.id,
    state: execution.status,
    result: (execution.result as Record<string, unknown> | null) ?? null,
    isolation: execution.isolation,
  };
}
