/**
 * What the framework adapters share: one Countersign action per model tool call, found again by
 * the call's id (the submission's Idempotency-Key), so a resumed, retried or restarted run never
 * proposes the same call twice; the reviewer's decision as a verdict the framework can act on;
 * and the execution through Countersign, once, as text for the model.
 */
import { CountersignError, RejectedError, type Countersign, type ExecutionResult, type Submission } from "./countersign.js";

export type GateOptions = {
  /**
   * Prepended to each tool call id to make the submission's Idempotency-Key. Call ids from
   * OpenAI's API are unique; if your model's ids can repeat across conversations, scope the prefix
   * (e.g. with your conversation id).
   */
  keyPrefix?: string;
  /** The reason the reviewer reads; default "The agent called <tool>." */
  reason?: (tool: string, args: Record<string, unknown>) => string;
  /** How long to wait for a reviewer before giving up with `not_decided` (default 15 minutes); the run stays resumable. */
  decisionTimeoutMs?: number;
  /** Called when Countersign holds a call for a reviewer (once per call in this process). */
  onPending?: (pending: PendingCall) => void;
};

export type PendingCall = { actionId: string; callId: string; tool: string; args: Record<string, unknown> };

/** A reviewer's (or the policy's) answer, with the words the model should read when it is no. */
export type Verdict =
  | { approved: true; actionId: string }
  | { approved: false; actionId: string | null; state: string; message: string };

/** Why a call was not run, in the words the model reads (the reviewer's or the policy's reason included). */
export function notRunMessage(state: string, reason: string): string {
  switch (state) {
    case "rejected":
      return `A reviewer rejected this call: ${reason}`;
    case "denied":
      return `Countersign's policy refused this call: ${reason}`;
    case "expired":
      return `Not run: the approval expired before a reviewer decided. ${reason}`;
    case "cancelled":
      return `Not run: the action was cancelled. ${reason}`;
    case "invalidated":
      return `Not run: the approval was invalidated. ${reason}`;
    default:
      return `Not run (${state}): ${reason}`;
  }
}

/** A Countersign refusal (a submission or an execution it would not accept), for the model. */
export function refusalMessage(error: CountersignError): string {
  if (error instanceof RejectedError) return notRunMessage("rejected", error.reason);
  return `Countersign did not run this call (${error.code}): ${error.message}`;
}

/** An execution's outcome for the model: the tool's result, or why it did not succeed. */
export function executionMessage(execution: Pick<ExecutionResult, "state" | "result" | "reason"> & Partial<Pick<ExecutionResult, "stdout" | "stderr" | "exitCode">>): string {
  if (execution.state !== "succeeded") {
    const how = execution.state === "failed" ? "failed" : "ended with an unknown effect";
    return `Countersign ran this call and it ${how}: ${execution.reason ?? "no reason was recorded"}`;
  }
  if (execution.result) return JSON.stringify(execution.result);
  return JSON.stringify({ exit_code: execution.exitCode ?? null, stdout: execution.stdout ?? "", stderr: execution.stderr ?? "" });
}

/** The model's arguments as Countersign takes them (a JSON object). */
export function argsObject(input: unknown): Record<string, unknown> {
  if (input && typeof input === "object" && !Array.isArray(input)) return input as Record<string, unknown>;
  throw new CountersignError("invalid_arguments", "The tool's arguments must be a JSON object.");
}

/** A refusal Countersign answered (a 4xx other than rate limiting), as opposed to a failure to ask it. */
export function isRefusal(error: unknown): error is CountersignError {
  return error instanceof CountersignError && error.status !== undefined && error.status < 500 && error.status !== 429;
}

/** The outcome of running a call through Countersign. */
export type RunOutcome =
  | { ran: true; execution: Pick<ExecutionResult, "state" | "result" | "reason" | "stdout" | "stderr" | "exitCode"> & { replayed: boolean } }
  | { ran: false; state: string; message: string };

export class CallGate {
  private readonly submissions = new Map<string, Promise<Submission>>();
  private readonly announced = new Set<string>();

  constructor(
    readonly client: Countersign,
    private readonly options: GateOptions,
    private readonly defaultPrefix: string,
  ) {}

  /** The submission's Idempotency-Key for a tool call. */
  keyFor(callId: string): string {
    return `${this.options.keyPrefix ?? this.defaultPrefix}${callId}`;
  }

  /**
   * Proposes the call, or finds the action it already is: memoised in this process, and keyed by
   * the call id on the server, so a resumed run (another process, a restored state) gets the same
   * action. A refusal (unknown tool, bad arguments) throws a CountersignError.
   */
  submit(callId: string, tool: string, args: Record<string, unknown>): Promise<Submission> {
    const key = this.keyFor(callId);
    let submission = this.submissions.get(key);
    if (!submission) {
      const reason = this.options.reason?.(tool, args) ?? `The agent called ${tool}.`;
      submission = this.client.submitTool(tool, args, { reason, idempotencyKey: key });
      // A failed request may be retried; a refusal is the same answer next time, but asking again is harmless.
      submission.catch(() => this.submissions.delete(key));
      this.submissions.set(key, submission);
    }
    return submission.then((s) => {
      if (s.state === "pending" && s.actionState === "pending" && !this.announced.has(key)) {
        this.announced.add(key);
        this.options.onPending?.({ actionId: s.id, callId, tool, args });
      }
      return s;
    });
  }

  /**
   * Waits for the reviewer's decision on the call (at once when the policy already decided).
   * Rejections, expiries, cancellations and invalidations are verdicts with the reason, not
   * errors; only `not_decided` (no decision in `decisionTimeoutMs`) and transport failures throw.
   */
  async verdict(callId: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Verdict> {
    let submission: Submission;
    try {
      submission = await this.submit(callId, tool, args);
    } catch (error) {
      if (isRefusal(error)) {
        return { approved: false, actionId: null, state: "refused", message: refusalMessage(error) };
      }
      throw error;
    }
    if (submission.state === "denied") return { approved: false, actionId: submission.id, state: "denied", message: notRunMessage("denied", submission.reason) };
    if (submission.state === "allowed") return { approved: true, actionId: submission.id };
    try {
      await this.client.waitForDecision(submission.id, { timeoutMs: this.options.decisionTimeoutMs ?? 900_000, signal });
      return { approved: true, actionId: submission.id };
    } catch (error) {
      if (error instanceof RejectedError) return { approved: false, actionId: submission.id, state: "rejected", message: notRunMessage("rejected", error.reason) };
      if (error instanceof CountersignError && ["expired", "cancelled", "invalidated", "denied"].includes(error.code)) {
        return { approved: false, actionId: submission.id, state: error.code, message: notRunMessage(error.code, error.message) };
      }
      throw error;
    }
  }

  /**
   * Runs the call through Countersign once (a repeat returns the recorded result) and says what
   * happened. A call the policy denied is not run; one it allowed already ran when it was
   * proposed. A refusal at execution (not approved, expired, the state changed since review)
   * throws a CountersignError whose message says why.
   */
  async run(callId: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<RunOutcome> {
    const submission = await this.submit(callId, tool, args);
    if (submission.state === "denied") return { ran: false, state: "denied", message: notRunMessage("denied", submission.reason) };
    if (submission.state === "allowed" && submission.execution) {
      const { state, result } = submission.execution;
      const reason = state === "succeeded" ? null : typeof result.error === "string" ? result.error : "The tool reported a failure.";
      return { ran: true, execution: { state, result, reason, stdout: "", stderr: "", exitCode: null, replayed: true } };
    }
    // Pending (now decided), or allowed with its run not over yet: execute returns or awaits it.
    const execution = await this.client.execute(submission.id, { idempotencyKey: this.keyFor(callId), signal });
    return { ran: true, execution };
  }
}
