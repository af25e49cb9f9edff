/**
 * Countersign agent API client: submit a tool call or code, wait for a reviewer's decision,
 * execute the approved action once. Needs only `fetch` (Node 18+, browsers, Deno, Bun).
 */

export type ActionState =
  | "pending" | "approved" | "rejected" | "expired" | "cancelled" | "invalidated" | "denied"
  | "executing" | "succeeded" | "failed" | "unknown";

/**
 * How the policy classified the action. `replayed` is true when this answers a repeated submit
 * with the same Idempotency-Key (the action it already made); `actionState` is where it is now.
 */
export type Submission = { replayed: boolean; actionState: ActionState } & (
  | { state: "pending"; id: string; revision: number; payloadHash: string; expiresAt: string; riskLevel: string; quorum: number; policyReason: string }
  | {
      state: "allowed";
      id: string;
      policyReason: string;
      /** Null only on a replay whose run has not ended: `execute()` returns or awaits it. */
      execution: { state: "succeeded" | "failed" | "unknown"; executionId: string; result: Record<string, unknown>; isolation: string | null } | null;
      /** Allowed by reviewers' standing grant instead of a review: what is left of it (null: no such limit). Absent on a replay. */
      grant?: GrantUse;
    }
  | { state: "denied"; id: string; reason: string; ruleId: string | null; riskLevel: string }
);

/** A standing grant's standing after the call it allowed (docs/API.md, "Standing grants"). */
export type GrantUse = { id: string; callsLeft: number | null; totalLeft: number | null; expiresAt: string };

export type Decision = {
  id: string;
  state: ActionState;
  decided: boolean;
  revision: number;
  payloadHash: string;
  reason: string | null;
  expiresAt: string | null;
};

export type StreamEvent =
  | { type: "stdout" | "stderr"; text: string }
  | { type: "heartbeat" }
  | {
      type: "result";
      state: "succeeded" | "failed" | "unknown" | "executing";
      executionId: string | null;
      exitCode: number | null;
      durationMs: number | null;
      truncated: boolean;
      timedOut?: boolean;
      isolation: string | null;
      replayed: boolean;
      stdout?: string;
      stderr?: string;
      result?: Record<string, unknown> | null;
    }
  | { type: "error"; code: string; message: string };

export type ExecutionResult = {
  state: "succeeded" | "failed" | "unknown";
  executionId: string | null;
  exitCode: number | null;
  durationMs: number | null;
  truncated: boolean;
  /** Code: the sandbox stopped it at its time limit (the state is then `failed`). */
  timedOut: boolean;
  /** Why it did not succeed, for a person or the model (a timeout, an exit code, the tool's error); null when it succeeded. */
  reason: string | null;
  isolation: string | null;
  replayed: boolean;
  stdout: string;
  stderr: string;
  /** Tool calls: what the tool returned. */
  result: Record<string, unknown> | null;
};

/** Any refusal: `code` is stable (e.g. tool_not_allowed, not_executable.pending), `message` is for a person. */
export class CountersignError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "CountersignError";
  }
}

/** A reviewer rejected the action; `reason` is their note, for the agent to revise. */
export class RejectedError extends CountersignError {
  constructor(readonly actionId: string, readonly reason: string) {
    super("rejected", `A reviewer rejected the action: ${reason}`);
    this.name = "RejectedError";
  }
}

/** The policy (or the code pre-scan) refused the action outright, or it ended cancelled/invalidated. */
export class DeniedError extends CountersignError {
  constructor(readonly actionId: string | null, readonly reason: string, code = "denied") {
    super(code, reason);
    this.name = "DeniedError";
  }
}

export class RateLimitedError extends CountersignError {
  constructor(code: string, message: string, readonly retryAfterSeconds: number, details?: unknown) {
    super(code, message, 429, details);
    this.name = "RateLimitedError";
  }
}

/** The longest long-poll the API accepts (`?timeout=`, seconds). */
const MAX_POLL_SECONDS = 60;

export type SubmitOptions = {
  /** Shown to the reviewer. */
  reason?: string;
  /** Strings the agent read from untrusted sources; arguments containing them are tagged for the reviewer. */
  untrustedValues?: string[];
  /**
   * Makes the submission safe to repeat: the same key with the same payload answers the same action
   * (no second proposal), the same key with another payload is refused (409). Use your framework's
   * call id (scoped to your agent), so a resumed or retried run finds its action again.
   */
  idempotencyKey?: string;
};

export type CountersignOptions = {
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
};

export class Countersign {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: CountersignOptions) {
    this.baseUrl = options.baseUrl.replace(/(?<!\/)\/+$/, "");
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  submitCode(code: string, options: SubmitOptions = {}): Promise<Submission> {
    const { idempotencyKey, ...fields } = options;
    return this.json<Submission>("POST", "/api/v1/actions", { code, language: "python", ...fields }, { headers: idempotencyHeader(idempotencyKey) });
  }

  submitTool(tool: string, args: Record<string, unknown>, options: SubmitOptions = {}): Promise<Submission> {
    const { idempotencyKey, ...fields } = options;
    return this.json<Submission>("POST", "/api/v1/actions", { tool, args, ...fields }, { headers: idempotencyHeader(idempotencyKey) });
  }

  getAction(id: string): Promise<Record<string, unknown> & { id: string; state: ActionState }> {
    return this.json("GET", `/api/v1/actions/${encodeURIComponent(id)}`);
  }

  /**
   * Long-polls until a reviewer decides. Resolves when approved (or already executed); throws
   * RejectedError with the reviewer's reason, DeniedError for other final states, and a
   * CountersignError `not_decided` after `timeoutMs`. It sends at most one request a second, and
   * a rate-limited poll waits for the window rather than ending the wait.
   */
  async waitForDecision(id: string, options: { timeoutMs?: number; pollSeconds?: number; signal?: AbortSignal } = {}): Promise<Decision> {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    const pollSeconds = Math.min(MAX_POLL_SECONDS, Math.max(1, Math.floor(options.pollSeconds ?? 25)));
    for (;;) {
      const started = Date.now();
      // Whole seconds rounded up, never 0: the last poll ends at the deadline, not in a burst of timeout=0.
      const step = Math.max(1, Math.min(pollSeconds, Math.ceil((deadline - started) / 1000)));
      let pauseMs = 0;
      try {
        const decision = await this.json<Decision>("GET", `/api/v1/actions/${encodeURIComponent(id)}/decision?timeout=${step}`, undefined, { signal: options.signal });
        if (decision.state === "approved") return decision;
        if (decision.state === "rejected") throw new RejectedError(id, decision.reason ?? "no reason given");
        if (decision.state === "expired") throw new CountersignError("expired", decision.reason ?? "The approval window closed.", 409);
        if (decision.decided) {
          if (["executing", "succeeded", "failed", "unknown"].includes(decision.state)) return decision;
          throw new DeniedError(id, decision.reason ?? `The action is ${decision.state}.`, decision.state);
        }
      } catch (error) {
        // Other requests of the key (another agent) used up its window: wait it out, within the deadline.
        if (!(error instanceof RateLimitedError)) throw error;
        pauseMs = error.retryAfterSeconds * 1000;
      }
      pauseMs = Math.max(pauseMs, started + 1000 - Date.now());
      const leftMs = deadline - Date.now();
      if (pauseMs >= leftMs) {
        if (leftMs > 0) await sleep(leftMs, options.signal);
        throw new CountersignError("not_decided", `No decision on ${id} in time.`);
      }
      if (pauseMs > 0) await sleep(pauseMs, options.signal);
    }
  }

  /** The execution's events as they arrive (code: stdout/stderr lines, then a result line). */
  async *executeStream(id: string, options: { idempotencyKey?: string; payloadHash?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const response = await this.request("POST", `/api/v1/actions/${encodeURIComponent(id)}/execute`, options.payloadHash ? { payloadHash: options.payloadHash } : {}, {
      headers: { "Idempotency-Key": options.idempotencyKey ?? `ts-${crypto.randomUUID()}` },
      signal: options.signal,
    });
    if (!(response.headers.get("content-type") ?? "").includes("ndjson")) {
      const body = (await response.json()) as { state: ExecutionResult["state"]; executionId: string; result: Record<string, unknown> | null; isolation: string | null; replayed: boolean };
      yield { type: "result", state: body.state, executionId: body.executionId, result: body.result, isolation: body.isolation, replayed: body.replayed, exitCode: null, durationMs: null, truncated: false };
      return;
    }
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buffer += value;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) yield JSON.parse(line) as StreamEvent;
      }
      if (done) break;
    }
    if (buffer.trim()) yield JSON.parse(buffer) as StreamEvent;
  }

  /**
   * Executes an approved action once and collects the result; `onOutput` sees code output as it
   * arrives. A repeated call returns the recorded result (`replayed: true`), never a second run. If
   * another caller's run of the same approval is still in progress, this waits for it to finish and
   * returns its recorded result (`signal` stops the wait).
   */
  async execute(
    id: string,
    options: { idempotencyKey?: string; payloadHash?: string; signal?: AbortSignal; onOutput?: (stream: "stdout" | "stderr", text: string) => void } = {},
  ): Promise<ExecutionResult> {
    for (;;) {
      const outcome = await this.executeOnce(id, options);
      if (outcome !== "executing") return outcome;
      await this.waitWhileExecuting(id, options.signal);
    }
  }

  cancel(id: string, reason?: string): Promise<{ id: string; state: "cancelled" }> {
    return this.json("POST", `/api/v1/actions/${encodeURIComponent(id)}/cancel`, reason ? { reason } : {});
  }

  /** One execute request: the result, or "executing" when another caller's run is still going. */
  private async executeOnce(
    id: string,
    options: { idempotencyKey?: string; payloadHash?: string; signal?: AbortSignal; onOutput?: (stream: "stdout" | "stderr", text: string) => void },
  ): Promise<ExecutionResult | "executing"> {
    let stdout = "";
    let stderr = "";
    for await (const event of this.executeStream(id, options)) {
      if (event.type === "stdout" || event.type === "stderr") {
        if (event.type === "stdout") stdout += event.text;
        else stderr += event.text;
        options.onOutput?.(event.type, event.text);
      } else if (event.type === "error") {
        throw new CountersignError(event.code, event.message, 409);
      } else if (event.type === "result") {
        if (event.state === "executing") return "executing";
        const timedOut = event.timedOut === true;
        const result = event.result ?? null;
        return {
          state: event.state,
          executionId: event.executionId,
          exitCode: event.exitCode,
          durationMs: event.durationMs,
          truncated: event.truncated,
          timedOut,
          reason: failureReason(event.state, { timedOut, exitCode: event.exitCode, result }),
          isolation: event.isolation,
          replayed: event.replayed,
          stdout: event.replayed ? (event.stdout ?? "") : stdout,
          stderr: event.replayed ? (event.stderr ?? "") : stderr,
          result,
        };
      }
    }
    throw new CountersignError("stream_ended", "The execution stream ended without a result; read the action for its state.");
  }

  /** Polls the action until its execution (someone else's) is no longer in progress, at most once a second. */
  private async waitWhileExecuting(id: string, signal?: AbortSignal): Promise<void> {
    let delayMs = 1_000;
    for (;;) {
      await sleep(delayMs, signal);
      const action = await this.json<{ state: ActionState }>("GET", `/api/v1/actions/${encodeURIComponent(id)}`, undefined, { signal });
      if (action.state !== "executing") return;
      delayMs = Math.min(delayMs * 2, 2_000);
    }
  }

  private async json<T>(method: string, path: string, body?: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<T> {
    const response = await this.request(method, path, body, init);
    return (await response.json()) as T;
  }

  private async request(method: string, path: string, body: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.apiKey}`, Accept: "application/json, application/x-ndjson", ...init.headers };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await this.fetchImpl(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: init.signal,
    });
    if (response.ok) return response;
    let code = "http_error";
    let message = `HTTP ${response.status}`;
    let details: unknown;
    try {
      const payload = (await response.json()) as { error?: { code?: string; message?: string; details?: unknown } };
      code = payload.error?.code ?? code;
      message = payload.error?.message ?? message;
      details = payload.error?.details;
    } catch {
      // Not JSON: keep the status line.
    }
    if (response.status === 429) throw new RateLimitedError(code, message, Number(response.headers.get("retry-after") ?? 1), details);
    throw new CountersignError(code, message, response.status, details);
  }
}

function idempotencyHeader(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { "Idempotency-Key": key };
}

/** Why an execution did not succeed, in a sentence; null when it did. */
function failureReason(state: ExecutionResult["state"], run: { timedOut: boolean; exitCode: number | null; result: Record<string, unknown> | null }): string | null {
  if (state === "succeeded") return null;
  if (state === "unknown") return "The run was cut short, so its effect is unknown; a person must check before it is tried again.";
  if (run.timedOut) return "The code ran past the sandbox's time limit and was stopped.";
  if (typeof run.result?.error === "string") return run.result.error;
  if (run.exitCode !== null) return `The code exited with status ${run.exitCode}.`;
  return "The run failed.";
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
