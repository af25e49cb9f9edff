import type { Db } from "@/lib/db/client";
import { AppError, toPublicError } from "@/lib/errors";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import type { Executor } from "@/lib/approvals/actors";
import { executeAction, type ExecutionOutcome } from "@/lib/approvals/execute-action";
import type { StreamEvent } from "@/lib/api/schemas";

export const NDJSON_CONTENT_TYPE = "application/x-ndjson; charset=utf-8";

export type StreamExecutionInput = {
  tenantId: string;
  actionId: string;
  /** The hash the caller holds; the claim refuses any other. */
  payloadHash: string;
  executor: Executor;
  actor: AuditActor;
  /** The request's signal: a client that goes away aborts the sandbox run. */
  signal?: AbortSignal;
  /** An empty line-level keep-alive for proxies while code prints nothing. */
  heartbeatMs?: number;
};

/** What an execution row (or `already_executed` details) holds. */
export type RecordedExecution = { id: string; status: string; result: unknown; isolation: string | null };

/** The closing `result` line, from a live outcome or a recorded execution (replay). */
export function resultEvent(execution: RecordedExecution, replayed: boolean): Extract<StreamEvent, { type: "result" }> {
  const result = execution.result && typeof execution.result === "object" ? (execution.result as Record<string, unknown>) : null;
  const isCode = result !== null && "exit_code" in result;
  const num = (value: unknown) => (typeof value === "number" ? value : null);
  const state = (["succeeded", "failed", "unknown", "executing"] as const).find((s) => s === execution.status) ?? "unknown";
  const event: Extract<StreamEvent, { type: "result" }> = {
    type: "result",
    state,
    executionId: execution.id,
    exitCode: isCode ? num(result.exit_code) : null,
    durationMs: isCode ? num(result.duration_ms) : null,
    truncated: result?.truncated === true,
    isolation: execution.isolation,
    replayed,
  };
  if (isCode) {
    event.timedOut = result.timed_out === true;
    // Live runs already streamed their output; a replay hands back what was recorded.
    if (replayed) {
      event.stdout = typeof result.stdout === "string" ? result.stdout : "";
      event.stderr = typeof result.stderr === "string" ? result.stderr : "";
    }
  } else {
    event.result = result;
  }
  return event;
}

export function outcomeAsRecorded(outcome: ExecutionOutcome): RecordedExecution {
  return { id: outcome.executionId, status: outcome.state, result: outcome.result, isolation: outcome.isolation };
}

export function encodeEvent(event: StreamEvent): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(event)}\n`);
}

/** A finished stream of the given events (refusals answered as a stream, replays). */
export function streamOf(events: StreamEvent[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const event of events) controller.enqueue(encodeEvent(event));
      controller.close();
    },
  });
}

/**
 * Claims the approval through the approval core's `executeAction` and streams the run as NDJSON:
 * `{type:"stdout"|"stderr", text}` lines as the sandbox produces them, then one
 * `{type:"result", state, exitCode, durationMs, truncated, isolation, replayed:false}` line, or an
 * `{type:"error", code, message}` line when the claim is refused. A second call for the same
 * approval gets the recorded result (`replayed: true`, with the recorded stdout/stderr) from the
 * `already_executed` refusal — never a second run. If the client disconnects, the run is aborted.
 */
export function streamExecution(db: Db, input: StreamExecutionInput): ReadableStream<Uint8Array> {
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  if (input.signal?.aborted) abort.abort();
  else input.signal?.addEventListener("abort", onClientGone, { once: true });
  let closed = false;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: StreamEvent) => {
        if (closed) return;
        try {
          controller.enqueue(encodeEvent(event));
        } catch {
          closed = true;
        }
      };
      const heartbeat = setInterval(() => send({ type: "heartbeat" }), input.heartbeatMs ?? 15_000);
      executeAction(db, {
        tenantId: input.tenantId,
        actionId: input.actionId,
        payloadHash: input.payloadHash,
        executor: input.executor,
        actor: input.actor,
        onOutput: (stream, text) => send({ type: stream, text }),
        signal: abort.signal,
      })
        .then((outcome) => send(resultEvent(outcomeAsRecorded(outcome), false)))
        .catch((error: unknown) => {
          if (error instanceof AppError && error.code === "already_executed") {
            const recorded = (error.details as { execution?: RecordedExecution | null } | undefined)?.execution;
            if (recorded) return send(resultEvent(recorded, true));
          }
          const { body } = toPublicError(error, "streamExecution");
          send({ type: "error", code: body.code, message: body.message });
        })
        .finally(() => {
          clearInterval(heartbeat);
          input.signal?.removeEventListener("abort", onClientGone);
          if (!closed) {
            closed = true;
            controller.close();
          }
        });
    },
    cancel() {
      closed = true;
      abort.abort();
    },
  });
}
