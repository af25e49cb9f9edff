import type { DbTx } from "@/lib/db/client";
import { readCountingDecisions } from "@/lib/db/statements/actions/read-counting-decisions";
import { decisionsAsUsed } from "@/lib/review/decisions-as-used";
import { decodeStoredText } from "@/lib/db/stored-text";
import type { ActionStatus, RiskLevel, TaskStatus, Verdict } from "@/lib/generated/prisma/enums";
import { parseGateOutcomeMessage, type GateOutcome } from "@/lib/agent/gate-outcome";
import { messageText } from "@/lib/agent/read-conversation";
import { unwrapUntrustedToolOutput } from "@/lib/agent/untrusted";
import { parseRunState } from "@/lib/tasks/run-state";
import type { JsonObject } from "@/lib/canonical/json-value";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { ARTIFACT_LISTING, artifactViewOf, type ArtifactView } from "@/lib/executions/artifact-view";

/** Longest text shown for one model message or tool output (the rest is marked as cut). */
const MAX_TEXT = 8_000;

export type TimelineDecision = {
  reviewer: string; verdict: Verdict; note: string | null; at: Date; void: boolean; revision: number;
  /** Whether it counts toward the action's outcome (see DecisionView.counts in lib/review/action-detail.ts). */
  counts: boolean;
};

export type TimelineExecution = {
  status: string;
  isolation: string | null;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  truncated: boolean;
  error: string | null;
  durationMs: number | null;
  startedAt: Date;
  finishedAt: Date | null;
  /** Files the run left in /mnt/out. */
  artifacts: ArtifactView[];
};

/** A later revision's arguments (a reviewer's edit, a re-read of the state): what ran, or what waits to. */
export type TimelineRevisionArgs = { revision: number; origin: string; argsText: string; ran: boolean };

export type TimelineAction = {
  id: string;
  tool: string;
  kind: "tool" | "code";
  status: ActionStatus;
  statusReason: string | null;
  riskLevel: RiskLevel;
  requiresApproval: boolean;
  quorum: number;
  revision: number;
  reason: string;
  expiresAt: Date | null;
  createdAt: Date;
  decisions: TimelineDecision[];
  executions: TimelineExecution[];
  /**
   * When the revision that ran (or, before anything ran, the current one) is not the agent's
   * revision 1: its arguments, which are what the requester must see instead of the agent's.
   */
  revisedArgs: TimelineRevisionArgs | null;
};

/** What the tool call gave back to the model: a result (plain text), or what the gate did. */
export type TimelineToolResult = { kind: "output"; text: string; truncated: boolean } | { kind: "gate"; outcome: GateOutcome };

export type TimelineEntry =
  | { kind: "instruction"; text: string; at: Date }
  | { kind: "model"; text: string }
  | { kind: "call"; callId: string; tool: string; argsText: string; action: TimelineAction | null; result: TimelineToolResult | null; reasonRepeatsModelText: boolean }
  | { kind: "action"; action: TimelineAction };

export type TaskTimeline = {
  id: string;
  instruction: string;
  status: TaskStatus;
  planner: string;
  offline: boolean;
  finalAnswer: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  entries: TimelineEntry[];
  /** How often the page refreshes: fast while a run or execution is in flight, slower while it waits, never once ended. */
  refreshMs: number | null;
};

function clip(text: string): { text: string; truncated: boolean } {
  return text.length > MAX_TEXT ? { text: text.slice(0, MAX_TEXT), truncated: true } : { text, truncated: false };
}

function toolResult(text: string): TimelineToolResult {
  const gate = parseGateOutcomeMessage(text);
  if (gate) return { kind: "gate", outcome: gate };
  const wrapped = unwrapUntrustedToolOutput(text);
  const clipped = clip(wrapped ? wrapped.content : text);
  return { kind: "output", text: clipped.text, truncated: clipped.truncated || (wrapped?.truncated ?? false) };
}

type RevisedRow = {
  kind: "tool" | "code";
  currentRevision: number;
  revisions: { revision: number; args: unknown; code: string | null; language: string | null; origin: string }[];
  executions: { revision: number }[];
};

/** The arguments of the revision that ran (the last execution's), or else of the current one, when that is not revision 1. */
function revisedArgsOf(a: RevisedRow): TimelineRevisionArgs | null {
  const ran = a.executions.at(-1)?.revision ?? null;
  const shown = ran ?? a.currentRevision;
  const rev = a.revisions.find((r) => r.revision === shown);
  if (shown <= 1 || !rev) return null;
  const args = typeof rev.args === "object" && rev.args !== null && !Array.isArray(rev.args) ? (rev.args as JsonObject) : null;
  const text = JSON.stringify(toolArgsOf({ kind: a.kind, args, code: rev.code, language: rev.language }), null, 2);
  return { revision: rev.revision, origin: rev.origin, argsText: clip(text).text, ran: ran !== null };
}

function prettyArgs(argumentsText: string): string {
  try {
    return JSON.stringify(JSON.parse(argumentsText), null, 2);
  } catch {
    return argumentsText;
  }
}

/**
 * A requester's task as a timeline: instruction, the model's words, each tool call with the action
 * it became and what went back, then the answer or error. Scoped to tenant and requester; all
 * text, rendered as text, never HTML.
 */
export async function getTaskTimeline(db: DbTx, input: { tenantId: string; taskId: string; requesterUserId: string }): Promise<TaskTimeline | null> {
  const task = await db.task.findFirst({
    where: { id: input.taskId, tenantId: input.tenantId, requesterUserId: input.requesterUserId },
    select: {
      id: true, instruction: true, status: true, planner: true, finalAnswer: true, error: true, runState: true, createdAt: true, updatedAt: true,
    },
  });
  if (!task) return null;
  const actions = await readTaskActions(db, input.tenantId, task.id);
  const reviewerIds = [...new Set(actions.flatMap((a) => a.decisions.map((d) => d.reviewerId)))];
  const reviewers = reviewerIds.length
    ? await db.user.findMany({ where: { id: { in: reviewerIds }, memberships: { some: { tenantId: input.tenantId } } }, select: { id: true, email: true } })
    : [];
  const reviewerLabel = new Map(reviewers.map((u) => [u.id, u.email]));
  // While a decision still matters, which votes count is the claim's rule; after it, the votes as used.
  const undecided = actions.filter((a) => a.status === "pending" || a.status === "approved");
  const counting = await readCountingDecisions(db, { tenantId: input.tenantId, actionIds: undecided.map((a) => a.id) });
  const undecidedIds = new Set(undecided.map((a) => a.id));

  const views = actions.map((a) => timelineActionOf(a, reviewerLabel, undecidedIds.has(a.id) ? counting : decisionsAsUsed(a.decisions)));
  const byCallId = new Map<string, TimelineAction>();
  actions.forEach((a, i) => {
    if (a.agentCallId) byCallId.set(a.agentCallId, views[i]);
  });

  const entries: TimelineEntry[] = [{ kind: "instruction", text: task.instruction, at: task.createdAt }, ...conversationEntries(task, byCallId)];
  const shown = new Set(entries.flatMap((e) => (e.kind === "call" && e.action ? [e.action.id] : [])));
  // Actions the conversation does not (yet) mention, e.g. proposed in a step still being saved.
  for (const view of views) if (!shown.has(view.id)) entries.push({ kind: "action", action: view });

  const executing = actions.some((a) => a.status === "executing" || a.status === "approved");
  const refreshMs = task.status === "queued" || task.status === "running" || executing ? 1_000 : task.status === "waiting_approval" ? 3_000 : null;
  return {
    id: task.id, instruction: task.instruction, status: task.status, planner: task.planner, offline: task.planner === "offline",
    finalAnswer: task.finalAnswer, error: task.error, createdAt: task.createdAt, updatedAt: task.updatedAt, entries, refreshMs,
  };
}

/** The task's actions in the order proposed, with what the timeline shows of their revisions, decisions and runs. */
function readTaskActions(db: DbTx, tenantId: string, taskId: string) {
  return db.action.findMany({
    where: { tenantId, taskId },
    orderBy: { createdAt: "asc" },
    select: {
      id: true, tool: true, kind: true, status: true, statusReason: true, riskLevel: true, requiresApproval: true, quorum: true,
      currentRevision: true, reason: true, expiresAt: true, createdAt: true, agentCallId: true,
      revisions: { where: { revision: { gt: 1 } }, select: { revision: true, args: true, code: true, language: true, origin: true } },
      decisions: {
        orderBy: { createdAt: "asc" },
        select: { id: true, revisionId: true, reviewerId: true, verdict: true, note: true, createdAt: true, void: true, revision: { select: { revision: true } } },
      },
      executions: {
        orderBy: { startedAt: "asc" },
        select: {
          revision: true, status: true, isolation: true, stdout: true, stderr: true, exitCode: true, truncated: true, error: true, durationMs: true, startedAt: true, finishedAt: true,
          artifacts: { where: { tenantId }, orderBy: { name: "asc" }, select: ARTIFACT_LISTING },
        },
      },
    },
  });
}

type TaskActionRow = Awaited<ReturnType<typeof readTaskActions>>[number];

/** `counting`: the ids of the decisions that count toward the action's outcome. */
function timelineActionOf(a: TaskActionRow, reviewerLabel: Map<string, string>, counting: ReadonlySet<string>): TimelineAction {
  return {
    id: a.id, tool: a.tool, kind: a.kind, status: a.status, statusReason: a.statusReason, riskLevel: a.riskLevel,
    requiresApproval: a.requiresApproval, quorum: a.quorum, revision: a.currentRevision, reason: a.reason, expiresAt: a.expiresAt, createdAt: a.createdAt,
    decisions: a.decisions.map((d) => ({
      reviewer: reviewerLabel.get(d.reviewerId) ?? "a former member", verdict: d.verdict, note: d.note, at: d.createdAt, void: d.void, revision: d.revision.revision,
      counts: counting.has(d.id),
    })),
    revisedArgs: revisedArgsOf(a),
    executions: a.executions.map(({ revision: _revision, ...e }) => ({
      ...e, stdout: e.stdout === null ? null : decodeStoredText(e.stdout), stderr: e.stderr === null ? null : decodeStoredText(e.stderr),
      artifacts: e.artifacts.map((artifact) => artifactViewOf(a.id, artifact)),
    })),
  };
}

/** What the model said and each tool call it made, with the action the call became and what went back to the model. */
function conversationEntries(task: { runState: unknown; finalAnswer: string | null }, byCallId: Map<string, TimelineAction>): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  let messages: ReturnType<typeof parseRunState>["messages"] = [];
  try {
    messages = parseRunState(task.runState).messages;
  } catch {
    messages = [];
  }
  const callEntries = new Map<string, Extract<TimelineEntry, { kind: "call" }>>();
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = messageText(message.content).trim();
      // The closing message usually is the final answer, shown once at the end.
      if (text && text !== task.finalAnswer?.trim()) entries.push({ kind: "model", text: clip(text).text });
      for (const call of message.tool_calls ?? []) {
        if (call.type !== "function") continue;
        const action = byCallId.get(call.id) ?? null;
        const entry: Extract<TimelineEntry, { kind: "call" }> = {
          kind: "call", callId: call.id, tool: call.function.name, argsText: clip(prettyArgs(call.function.arguments)).text, action, result: null,
          reasonRepeatsModelText: action !== null && action.reason.trim() === text,
        };
        callEntries.set(call.id, entry);
        entries.push(entry);
      }
    } else if (message.role === "tool") {
      const entry = callEntries.get(message.tool_call_id);
      if (entry) entry.result = toolResult(messageText(message.content));
    }
  }
  return entries;
}
