import { hasPermission } from "@/lib/roles/permissions";
import type OpenAI from "openai";
import { thenSeal } from "@/lib/audit/seal-audit-chain";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { finishTask } from "@/lib/db/statements/tasks/finish-task";
import { AppError, toPublicError } from "@/lib/errors";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import type { GateOutcome } from "@/lib/agent/gate-outcome";
import { assistantMessageFromTurn, type ChatMessage, type ChatModel } from "@/lib/agent/model";
import { parseToolCall, toolSpecsForModel } from "@/lib/agent/tool-specs";
import { gateOutcomeToolMessage, toolResultMessage } from "@/lib/agent/tool-messages";
import { keepUntrustedStrings } from "@/lib/agent/untrusted";
import { executeAction } from "@/lib/approvals/execute-action";
import { CallTaken, proposeAction } from "@/lib/approvals/propose-action";
import type { Requester } from "@/lib/approvals/actors";
import { parseRunState, type RunState } from "@/lib/tasks/run-state";
import { readEnv } from "@/lib/env";
import { toolsForTenant } from "@/lib/tools/tenant-tools";
import type { ToolDefinition } from "@/lib/tools/tool";

export const MAX_REVIEW_CYCLES = readEnv("COUNTERSIGN_MAX_REVIEW_CYCLES") ?? 5;
export const MAX_MODEL_TURNS = readEnv("COUNTERSIGN_MAX_MODEL_TURNS") ?? 20;

/** `paused`: the stop button holds the tenant's agents; the task goes on from here once resumed. */
export type StepResult = "continue" | "waiting" | "paused" | "done" | "lease_lost";

type ClaimedTask = { id: string; tenantId: string; leaseOwner: string };

/** Persists the run state only while this worker still holds the lease (two workers never both write). */
async function save(db: Db, task: ClaimedTask, state: RunState, data: Record<string, unknown> = {}): Promise<boolean> {
  const { count } = await db.task.updateMany({
    where: { id: task.id, leaseOwner: task.leaseOwner },
    data: { runState: state as unknown as JsonObject, ...data },
  });
  return count === 1;
}

function agentActor(taskId: string, requesterLabel: string) {
  return { type: "agent" as const, id: taskId, label: `agent for ${requesterLabel}` };
}

/** The tool message for an action that has reached an end state, or null while it must wait. */
async function resolvePending(
  db: Db,
  task: ClaimedTask & { requesterLabel: string },
  entry: RunState["pending"][number],
  state: RunState,
): Promise<ChatMessage | null> {
  const action = await db.action.findFirst({
    where: { id: entry.actionId, tenantId: task.tenantId },
    select: { status: true, statusReason: true, payloadHash: true, tool: true },
  });
  if (!action) return gateOutcomeToolMessage(entry.callId, { kind: "failed", tool: entry.tool, reason: "The action disappeared." });
  const outcome = (o: GateOutcome) => gateOutcomeToolMessage(entry.callId, o);
  switch (action.status) {
    case "pending":
    case "executing":
      return null;
    case "approved":
      try {
        const run = await executeAction(db, {
          tenantId: task.tenantId, actionId: entry.actionId, payloadHash: action.payloadHash, executor: { type: "requester" },
          actor: agentActor(task.id, task.requesterLabel),
        });
        return executedMessage(entry, run.state, run.result, state);
      } catch (error) {
        if (error instanceof AppError && error.code === "state_changed") return null; // a fresh revision waits for review
        if (error instanceof AppError && error.code === "already_executed") return null; // recorded by whoever ran it; read next pass
        if (error instanceof AppError && error.code === "expired") return outcome({ kind: "expired", tool: entry.tool });
        if (error instanceof AppError && error.code === "agents_paused") return null; // runs once the agents are resumed
        if (error instanceof AppError && error.code === "no_quorum") return null; // its approvals stopped counting: back in review
        return outcome({ kind: "failed", tool: entry.tool, reason: toPublicError(error, "task execution").body.message });
      }
    case "succeeded":
    case "failed":
    case "unknown": {
      const execution = await db.execution.findFirst({
        where: { actionId: entry.actionId, tenantId: task.tenantId }, orderBy: { startedAt: "desc" }, select: { result: true },
      });
      return executedMessage(entry, action.status, (execution?.result as JsonObject | null) ?? {}, state);
    }
    case "rejected":
      return outcome({ kind: "rejected", tool: entry.tool, reason: action.statusReason ?? "" });
    case "expired":
      return outcome({ kind: "expired", tool: entry.tool });
    case "cancelled":
      return outcome({ kind: "cancelled", tool: entry.tool, reason: action.statusReason ?? "Cancelled." });
    case "denied":
      return outcome({ kind: "denied", tool: entry.tool, reason: action.statusReason ?? "Denied by policy." });
    case "invalidated":
      return outcome({ kind: "failed", tool: entry.tool, reason: action.statusReason ?? "The approval was invalidated." });
  }
}

function executedMessage(entry: { callId: string; tool: string }, status: string, result: JsonObject, state: RunState): ChatMessage {
  if (status === "unknown") {
    return gateOutcomeToolMessage(entry.callId, { kind: "failed", tool: entry.tool, reason: "The outcome is unknown; a person must confirm it." });
  }
  remember(state, result);
  return toolResultMessage(entry.callId, entry.tool, { ok: status === "succeeded", result });
}

function remember(state: RunState, output: unknown) {
  state.untrusted = keepUntrustedStrings(state.untrusted, output);
}

/** Tool calls of the last assistant message that have neither a tool message nor a pending entry. */
function unresolvedCalls(state: RunState): OpenAI.Chat.ChatCompletionMessageToolCall[] {
  const last = [...state.messages].reverse().find((m) => m.role === "assistant");
  if (!last || last.role !== "assistant" || !last.tool_calls?.length) return [];
  const answered = new Set(state.messages.filter((m) => m.role === "tool").map((m) => (m as { tool_call_id: string }).tool_call_id));
  const waiting = new Set(state.pending.map((p) => p.callId));
  return last.tool_calls.filter((c) => !answered.has(c.id) && !waiting.has(c.id));
}

/**
 * One step of a task's run under this worker's lease: resolve decided actions (executing approved
 * ones), or ask the model for its next turn and propose its calls. The turn is saved first and each
 * proposal keyed by its tool-call id, so a step repeated after a crash neither asks nor proposes twice.
 */
export async function advanceTask(db: Db, claimed: ClaimedTask, model: ChatModel, signal?: AbortSignal): Promise<StepResult> {
  const task = await db.task.findUniqueOrThrow({ where: { id: claimed.id } });
  if (task.leaseOwner !== claimed.leaseOwner) return "lease_lost";
  if (["completed", "failed", "cancelled"].includes(task.status)) return "done";
  const state = parseRunState(task.runState);

  const requester = await requesterWhoMayRunTasks(db, task);
  // Whatever this read says, an approval is used only while the requester may still act: the
  // claim checks it itself (requester-rules.ts). This stops the model's turns for one who may not.
  if (!requester) {
    await finish(db, claimed, state, "failed", null, "The requester is no longer a member of this organisation who may run tasks.");
    return "done";
  }

  // 1. Decided actions come back as tool results, in call order.
  const resolved = await resolveDecidedActions(db, { ...claimed, requesterLabel: requester.label }, task.cycleCount, state);
  if (resolved) return resolved;

  // 2. The model's next turn, saved before anything is proposed. The tools are the tenant's
  // (built-ins and approved MCP tools), read afresh for each turn.
  const tools = await toolsForTenant(db, task.tenantId);
  const next = await nextToolCalls(db, claimed, { state, stepCount: task.stepCount, tools, model, signal });
  if ("result" in next) return next.result;

  // 3. Propose each call through the same gate as everyone else.
  return proposeToolCalls(db, claimed, { requester, state, tools, calls: next.calls, stepKey: `${task.id}:${next.stepCount}` });
}

/** The task's requester while they may still run tasks here, or null. */
async function requesterWhoMayRunTasks(db: Db, task: { tenantId: string; requesterUserId: string | null }): Promise<Requester | null> {
  if (!task.requesterUserId) return null;
  const membership = await db.membership.findUnique({
    where: { tenantId_userId: { tenantId: task.tenantId, userId: task.requesterUserId } },
    select: { roles: true, user: { select: { email: true, disabledAt: true } } },
  });
  if (!membership || membership.user.disabledAt || !hasPermission(membership.roles, "tasks:use")) return null;
  return { type: "user", userId: task.requesterUserId, label: membership.user.email, roles: membership.roles };
}

/**
 * Turns the run's decided actions into tool messages and saves what still waits. Returns the
 * step's result when it ends here (still waiting, lease lost, too many review cycles), else null.
 */
async function resolveDecidedActions(db: Db, task: ClaimedTask & { requesterLabel: string }, cycleCount: number, state: RunState): Promise<StepResult | null> {
  if (state.pending.length === 0) return null;
  const stillWaiting: RunState["pending"] = [];
  for (const entry of state.pending) {
    const message = await resolvePending(db, task, entry, state);
    if (message) state.messages.push(message);
    else stillWaiting.push(entry);
  }
  const resolvedSome = stillWaiting.length < state.pending.length;
  state.pending = stillWaiting;
  if (state.pending.length > 0) {
    if (!(await save(db, task, state, { status: "waiting_approval" }))) return "lease_lost";
    return "waiting";
  }
  if (resolvedSome) {
    const cycles = cycleCount + 1;
    if (!(await save(db, task, state, { status: "running", cycleCount: cycles }))) return "lease_lost";
    if (cycles >= MAX_REVIEW_CYCLES) {
      await finish(db, task, state, "failed", null, `Stopped after ${cycles} review cycles without finishing.`);
      return "done";
    }
  }
  return null;
}

type ToolCall = OpenAI.Chat.ChatCompletionMessageToolCall;

/**
 * The tool calls to propose: those of a turn saved before a crash, or of the model's next turn,
 * saved first. Returns the step's result instead when the run ends or the lease is lost.
 */
async function nextToolCalls(
  db: Db,
  task: ClaimedTask,
  run: { state: RunState; stepCount: number; tools: ToolDefinition[]; model: ChatModel; signal?: AbortSignal },
): Promise<{ calls: ToolCall[]; stepCount: number } | { result: StepResult }> {
  const { state } = run;
  const saved = unresolvedCalls(state);
  if (saved.length > 0) return { calls: saved, stepCount: run.stepCount };
  if (run.stepCount >= MAX_MODEL_TURNS) {
    await finish(db, task, state, "failed", null, `Stopped after ${run.stepCount} model turns without a final answer.`);
    return { result: "done" };
  }
  let turn;
  try {
    turn = await run.model.complete({ messages: state.messages, tools: toolSpecsForModel(run.tools), signal: run.signal });
  } catch (error) {
    const message = error instanceof Error ? error.message : "The model could not be reached.";
    await finish(db, task, state, "failed", null, `The agent could not continue: ${message}`);
    return { result: "done" };
  }
  state.messages.push(assistantMessageFromTurn(turn));
  const stepCount = run.stepCount + 1;
  if (!(await save(db, task, state, { status: "running", stepCount, planner: turn.provider }))) return { result: "lease_lost" };
  if (turn.toolCalls.length === 0) {
    await finish(db, task, state, "completed", turn.content ?? "", null);
    return { result: "done" };
  }
  return { calls: unresolvedCalls(state), stepCount };
}

type Proposing = { requester: Requester; state: RunState; tools: ToolDefinition[]; calls: ToolCall[]; stepKey: string };

/** Proposes each call in turn and saves the run: waiting on the actions that need review, or on to the next turn. */
async function proposeToolCalls(db: Db, task: ClaimedTask, proposing: Proposing): Promise<StepResult> {
  const { state } = proposing;
  const last = [...state.messages].reverse().find((m) => m.role === "assistant");
  const reason = typeof last?.content === "string" ? last.content : "";
  let paused = false;
  for (const call of proposing.calls) {
    if (call.type !== "function") continue;
    const stopped = await proposeToolCall(db, task, proposing, call, reason);
    if (stopped === "lease_lost") return "lease_lost";
    if (stopped === "paused") {
      paused = true;
      break;
    }
  }
  const waiting = state.pending.length > 0;
  if (!(await save(db, task, state, { status: waiting ? "waiting_approval" : "running" }))) return "lease_lost";
  if (paused) return "paused";
  return waiting ? "waiting" : "continue";
}

/** One call through the gate: its answer or its wait goes into the run state; or why proposing stops here. */
async function proposeToolCall(
  db: Db,
  task: ClaimedTask,
  { requester, state, tools, stepKey }: Proposing,
  call: OpenAI.Chat.ChatCompletionMessageFunctionToolCall,
  reason: string,
): Promise<"paused" | "lease_lost" | null> {
  const parsed = parseToolCall({ name: call.function.name, argumentsText: call.function.arguments }, tools);
  if (!parsed.ok) {
    state.messages.push(gateOutcomeToolMessage(call.id, { kind: "invalid", tool: call.function.name, reason: parsed.error }));
    return null;
  }
  const existing = await db.action.findUnique({ where: { taskId_agentCallId: { taskId: task.id, agentCallId: call.id } }, select: { id: true } });
  if (existing) {
    state.pending.push({ callId: call.id, actionId: existing.id, tool: parsed.tool.name });
    return null;
  }
  try {
    const outcome = await proposeAction(db, {
      tenantId: task.tenantId, requester, tool: parsed.tool.name, args: parsed.args, reason,
      taskId: task.id, taskLeaseOwner: task.leaseOwner, stepKey, agentCallId: call.id, untrustedValues: state.untrusted,
    });
    if (outcome.state === "allowed") {
      remember(state, outcome.execution.result);
      state.messages.push(toolResultMessage(call.id, parsed.tool.name, { ok: outcome.execution.state === "succeeded", result: outcome.execution.result }));
    } else if (outcome.state === "denied") {
      const blocked = parsed.tool.kind === "code" && /blocked|does not parse|No sandbox/.test(outcome.reason);
      state.messages.push(gateOutcomeToolMessage(call.id, { kind: blocked ? "blocked" : "denied", tool: parsed.tool.name, reason: outcome.reason }));
    } else {
      state.pending.push({ callId: call.id, actionId: outcome.actionId, tool: parsed.tool.name });
    }
  } catch (error) {
    // Stopped before this call: it stays unanswered and is proposed once the agents are resumed.
    if (error instanceof AppError && error.code === "agents_paused") return "paused";
    // Another worker holds the task now: it carries on from the last saved turn.
    if (error instanceof AppError && error.code === "task_lease_lost") return "lease_lost";
    // Proposed meanwhile by a worker that took the task over: the call waits on that action.
    if (error instanceof CallTaken) {
      state.pending.push({ callId: call.id, actionId: error.actionId, tool: parsed.tool.name });
      return null;
    }
    const message = toPublicError(error, "task proposal").body.message;
    state.messages.push(gateOutcomeToolMessage(call.id, { kind: "invalid", tool: parsed.tool.name, reason: message }));
  }
  return null;
}

async function finish(db: Db, task: ClaimedTask, state: RunState, status: "completed" | "failed", answer: string | null, error: string | null) {
  await thenSeal(db, task.tenantId, sqlTransaction(db, async (tx) => {
    const finished = await finishTask(tx, {
      taskId: task.id, leaseOwner: task.leaseOwner, status, finalAnswer: answer, error, runState: state as unknown as JsonObject,
    });
    if (!finished) return;
    await appendAuditEvent(tx, {
      tenantId: task.tenantId, actor: { type: "agent", id: task.id, label: "agent" }, type: `task.${status}`,
      outcome: status === "completed" ? "ok" : "error", subject: { type: "task", id: task.id }, status,
      data: { error },
    });
  }));
}
