import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { denialOutcome, gateOutcomeMessage, type GateOutcome } from "@/lib/agent/gate-outcome";
import { wrapUntrustedToolOutput } from "@/lib/agent/untrusted";
import { cancelAction } from "@/lib/approvals/cancel-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { waitForDecision, DECISION_POLL_MS } from "@/lib/api/wait-for-decision";
import type { RecordedExecution } from "@/lib/api/stream-execution";
import { readLatestExecution } from "@/lib/db/statements/executions/read-latest-execution";
import { gatewayTools, type GatewayTool } from "@/lib/mcp/gateway-tools";
import { budgetStanding, describeBudgetLine } from "@/lib/policy/budget-standing";
import { grantUseOf } from "@/lib/api/submission-response";
import type { GrantLeft } from "@/lib/db/statements/actions/write-proposals";

/** Where a result's `_meta` says which Countersign action the call became. */
export const ACTION_META_KEY = "countersign/action";

/** How often a waiting call tells the client it is still waiting (clients reset their timeout on it). */
export const PROGRESS_INTERVAL_MS = 10_000;

export type GatewayCall = {
  tenantId: string;
  key: { id: string; label: string; prefix: string; allowedTools: string[] };
  tool: string;
  args: Record<string, unknown>;
  /** The agent's stated reason, if the client sent one. */
  reason?: string;
  /** Strings from tool output this session handed back (provenance risk tags). */
  untrustedValues: string[];
  /** Aborts when the client cancels the call, closes its session or disconnects; its reason says which. */
  signal: AbortSignal;
  /** Tells the client how the call stands; absent when it asked for no progress. */
  onProgress?: (message: string) => Promise<void>;
  /** The call became an action that waits for a decision (before the wait begins). */
  onPending?: (actionId: string) => Promise<void>;
  /** Tool output handed back, as it was returned (for the session's provenance). */
  onOutput?: (output: unknown) => Promise<void>;
  /** The console's public origin, for the links in `_meta`. */
  origin: string;
  progressIntervalMs?: number;
};

/**
 * One `tools/call` through the gate, as the HTTP API runs it (propose → allowed / denied /
 * pending → decision → execute once), answered in MCP's terms: a result the tool produced comes
 * back as untrusted data (wrapped as the planner wraps tool output); a call the gate did not run —
 * denied, rejected with the reviewer's reason, expired, cancelled, invalidated, failed — comes
 * back as an error result (`isError`) whose text tells the model why and what it may do. A
 * pending call waits for the decision, reporting progress, and is cancelled through the
 * ordinary cancel path when the client cancels it or goes away. `_meta["countersign/action"]`
 * names the action and links to it. Throws `tool_not_allowed` for a tool the key may not propose.
 */
export async function callGatewayTool(db: Db, call: GatewayCall): Promise<CallToolResult> {
  const tool = (await gatewayTools(db, call.tenantId, call.key)).find((t) => t.name === call.tool);
  if (!tool) {
    throw new AppError("tool_not_allowed", `This API key may not propose ${call.tool.slice(0, 64)}.`, 403, { tool: call.tool.slice(0, 64) });
  }
  const requester = { type: "api_key" as const, apiKeyId: call.key.id, label: call.key.label };
  let outcome: Awaited<ReturnType<typeof proposeAction>>;
  try {
    outcome = await proposeAction(db, {
      tenantId: call.tenantId, requester, tool: tool.name, args: call.args, reason: call.reason,
      untrustedValues: call.untrustedValues, channel: "mcp",
    });
  } catch (error) {
    // Refused before anything was recorded (invalid arguments, a payload too complex…): audited by the core.
    if (!isAppError(error) || error.code === "api_key_revoked") throw error;
    return gateResult({ kind: "invalid", tool: tool.name, reason: error.message }, null);
  }
  // With a budgeted policy: each budget the call was judged against, and what is left of it.
  const budgets = outcome.state !== "replayed" && outcome.budgets ? { budgets: outcome.budgets.map(budgetStanding) } : {};
  const grant = outcome.state === "allowed" && outcome.grant ? { grant: grantUseOf(outcome.grant) } : {};
  const at = (state: string, extra: Record<string, unknown> = {}) => actionMeta(call.origin, outcome.actionId, { state, ...extra, ...budgets, ...grant });
  switch (outcome.state) {
    case "denied":
      return gateResult(denialOutcome(tool, outcome.reason), at("denied", { ruleId: outcome.ruleId }));
    case "allowed": {
      const result = await executedResult(tool, call, { ...outcome.execution, id: outcome.execution.executionId, status: outcome.execution.state }, false, at);
      // Said in words too, for a model that reads only the text: the grant that allowed it and the
      // budget it was allowed within (both, for a budgeted call a grant allowed), and what is left.
      const left = outcome.budgets?.length ? outcome.budgets.map((line) => describeBudgetLine(line, tool.name)).join("; ") : null;
      const words = [outcome.grant ? describeGrantUse(outcome.grant) : null, left === null ? null : `Allowed within the policy's budget: ${left}.`];
      return { ...result, content: [...result.content, ...words.flatMap((text) => (text === null ? [] : [{ type: "text" as const, text }]))] };
    }
    case "pending":
      return awaitDecision(db, tool, call, { actionId: outcome.actionId, revision: outcome.revision, policyReason: outcome.reason }, at);
    case "replayed":
      // Only a submit under an Idempotency-Key is replayed, and MCP calls carry none.
      throw new Error("An MCP call was answered as a replayed submit.");
  }
}

/** In words, for a model that reads only the text: allowed by a grant, and what is left of it. */
function describeGrantUse(grant: GrantLeft): string {
  const left = [
    grant.callsLeft === null ? null : `${grant.callsLeft} more call${grant.callsLeft === 1 ? "" : "s"}`,
    grant.totalLeft === null ? null : `${grant.totalLeft} (minor units) more in total`,
  ].filter(Boolean).join(" and ");
  return `Allowed without review by standing grant ${grant.id}; it allows ${left} until ${grant.expiresAt.toISOString()}.`;
}

type Meta = (state: string, extra?: Record<string, unknown>) => Record<string, unknown>;

async function awaitDecision(
  db: Db,
  tool: GatewayTool,
  call: GatewayCall,
  pending: { actionId: string; revision: number; policyReason: string },
  at: Meta,
): Promise<CallToolResult> {
  const scope = { tenantId: call.tenantId, actionId: pending.actionId, apiKeyId: call.key.id };
  const actor: AuditActor = { type: "api_key", id: call.key.id, label: call.key.label };
  const intervalSeconds = (call.progressIntervalMs ?? PROGRESS_INTERVAL_MS) / 1000;
  const reviewUrl = `${call.origin}/actions/${pending.actionId}`;
  // A lost progress notification must not end the wait: the answer may still reach the client.
  const progress = (message: string) => call.onProgress?.(message).catch(() => {});
  await call.onPending?.(pending.actionId);
  await progress(`Waiting for a reviewer to decide this ${tool.name} call (${reviewUrl}). ${pending.policyReason}`);
  let revision = pending.revision;
  for (;;) {
    if (call.signal.aborted) return cancelled(db, tool, call, pending.actionId, actor, at);
    const wait = await waitForDecision(db, scope, { timeoutSeconds: intervalSeconds, signal: call.signal });
    if (call.signal.aborted) return cancelled(db, tool, call, pending.actionId, actor, at);
    const edited = wait.revision !== revision;
    revision = wait.revision;
    switch (wait.state) {
      case "pending":
        await progress(edited ? `The call was revised; revision ${revision} waits for a reviewer.` : "Still waiting for a reviewer.");
        continue;
      case "approved": {
        await progress(`Approved; executing revision ${revision}.`);
        try {
          const run = await executeAction(db, {
            tenantId: call.tenantId, actionId: pending.actionId, payloadHash: wait.payloadHash, executor: { type: "requester" }, actor, signal: call.signal,
          });
          return executedResult(tool, call, { ...run, id: run.executionId, status: run.state }, false, at);
        } catch (error) {
          if (!isAppError(error)) throw error;
          if (error.code === "state_changed" || error.code === "no_quorum") {
            // The approval was invalidated and a fresh revision waits for review, or its approvals
            // stopped counting and it is back in review: keep waiting for the decision.
            await progress(error.message);
            continue;
          }
          if (error.code === "already_executed") {
            const recorded = (error.details as { execution?: RecordedExecution | null } | undefined)?.execution;
            if (recorded && recorded.status !== "executing") return executedResult(tool, call, recorded, true, at);
            await pause(call.signal);
            continue;
          }
          if (error.code === "expired") return gateResult({ kind: "expired", tool: tool.name }, at("expired"));
          return gateResult({ kind: "failed", tool: tool.name, reason: error.message }, at(error.code));
        }
      }
      case "executing":
        // Someone else (a reviewer in the console) is running it: its recorded result is this call's.
        await pause(call.signal);
        continue;
      case "succeeded":
      case "failed":
      case "unknown": {
        const recorded = await readLatestExecution(db, { tenantId: call.tenantId, actionId: pending.actionId });
        if (!recorded || recorded.status === "executing") {
          await pause(call.signal);
          continue;
        }
        return executedResult(tool, call, recorded, true, at);
      }
      case "rejected":
        return gateResult({ kind: "rejected", tool: tool.name, reason: wait.reason ?? "" }, at("rejected"));
      case "expired":
        return gateResult({ kind: "expired", tool: tool.name }, at("expired"));
      case "cancelled":
        return gateResult({ kind: "cancelled", tool: tool.name, reason: wait.reason ?? "Cancelled." }, at("cancelled"));
      case "denied":
        return gateResult(denialOutcome(tool, wait.reason ?? "Denied by policy."), at("denied"));
      case "invalidated":
        return gateResult({ kind: "failed", tool: tool.name, reason: wait.reason ?? "The approval was invalidated." }, at("invalidated"));
    }
  }
}

/**
 * The client cancelled the call or went away: the action is withdrawn through the ordinary cancel
 * path (audited as the key's), unless it was decided or ran meanwhile. Nothing reads this answer
 * (a cancelled request gets none), but the handler must end.
 */
async function cancelled(db: Db, tool: GatewayTool, call: GatewayCall, actionId: string, actor: AuditActor, at: Meta): Promise<CallToolResult> {
  const why = typeof call.signal.reason === "string" ? call.signal.reason : "The MCP client cancelled the call.";
  try {
    await cancelAction(db, { tenantId: call.tenantId, actionId, actor, apiKeyId: call.key.id, reason: why });
  } catch (error) {
    // Decided, run or expired meanwhile: the refusal is audited; there is nothing left to withdraw.
    if (!isAppError(error)) console.error("[countersign] cancelling an MCP call's action failed:", error);
  }
  return gateResult({ kind: "cancelled", tool: tool.name, reason: why }, at("cancelled"));
}

/** A result the tool produced: untrusted data for the model, an error result unless it succeeded. */
async function executedResult(tool: GatewayTool, call: GatewayCall, execution: RecordedExecution, replayed: boolean, at: Meta): Promise<CallToolResult> {
  const meta = at(execution.status, { executionId: execution.id, replayed });
  if (execution.status === "unknown") {
    return gateResult({ kind: "failed", tool: tool.name, reason: "The outcome is unknown; a person must confirm it." }, meta);
  }
  const output = { ok: execution.status === "succeeded", result: execution.result ?? {} };
  // Remembered before the answer goes out: the session's next call, on any instance, carries it.
  await call.onOutput?.(output);
  return {
    content: [{ type: "text", text: wrapUntrustedToolOutput(tool.name, output) }],
    isError: execution.status !== "succeeded",
    _meta: meta,
  };
}

function gateResult(outcome: GateOutcome, meta: Record<string, unknown> | null): CallToolResult {
  return { content: [{ type: "text", text: gateOutcomeMessage(outcome) }], isError: true, ...(meta ? { _meta: meta } : {}) };
}

function actionMeta(origin: string, actionId: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    [ACTION_META_KEY]: { id: actionId, ...fields, reviewUrl: `${origin}/actions/${actionId}`, apiUrl: `${origin}/api/v1/actions/${actionId}` },
  };
}

function pause(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, DECISION_POLL_MS);
    signal.addEventListener("abort", done, { once: true });
  });
}
