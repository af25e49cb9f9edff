import { createHash, randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { sqlTransaction, type SqlClient } from "@/lib/db/sql";
import { urgently } from "@/lib/scheduling/urgency";
import { AppError, isAppError, markAudited, OutcomeUnknownError } from "@/lib/errors";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import type { Executor } from "@/lib/approvals/actors";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { claimApproval, type ClaimRefusal } from "@/lib/db/statements/executions/claim-approval";
import { agentsPausedError } from "@/lib/approvals/agents-paused-error";
import { isUuid } from "@/lib/db/uuid";
import { lockExecutionStanding } from "@/lib/db/statements/tenant/lock-acting-membership";
import { sessionEndedError } from "@/lib/auth/session-ended";
import { lockAction, type LockedAction } from "@/lib/db/statements/actions/lock-action";
import type { ProposalWritten } from "@/lib/db/statements/actions/write-proposals";
import { readLatestExecution } from "@/lib/db/statements/executions/read-latest-execution";
import { recordExecution as writeExecutionRecord, type ExecutionState } from "@/lib/db/statements/executions/record-execution";
import { renewExecutionLease } from "@/lib/db/statements/executions/renew-execution-lease";
import { reopenLostApprovals } from "@/lib/approvals/reopen-lost-approvals";
import { settleAction } from "@/lib/db/statements/actions/settle-action";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import type { Applied, ToolDefinition, ToolOutcome } from "@/lib/tools/tool";
import { datasetRefsOf, revisionHash, revisionPayloadOf, toolArgsOf } from "@/lib/approvals/action-revision";
import { fitsWithin, INLINE_CHARS } from "@/lib/compute/fits-within";
import { insertExecutionArtifact } from "@/lib/db/statements/executions/insert-execution-artifact";
import { runCompute } from "@/lib/compute/compute-pool";
import { hashRevisionTask } from "@/lib/approvals/compute";
import { ArgumentsRefused, createNextRevision } from "@/lib/approvals/create-next-revision";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { readLiveState } from "@/lib/approvals/read-live-state";
import { liveExecutionOutput } from "@/lib/approvals/live-output";
import { readEnv } from "@/lib/env";

/** Identifies this process in execution claims, so recovery knows whose lease lapsed. */
export const PROCESS_ID = `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

/** How long a delivery may go without renewing its lease before another process treats it as crashed. */
export function executionLeaseSeconds(): number {
  return (readEnv("COUNTERSIGN_EXECUTION_LEASE_MS") ?? 60_000) / 1000;
}

/** Derived from the approval, so every attempt at one execution carries the same key. */
export function idempotencyKeyFor(actionId: string, revision: number, hash: string): string {
  return `cs1_${createHash("sha256").update(`${actionId}:${revision}:${hash}`).digest("hex").slice(0, 40)}`;
}

export type ExecutionOutcome = {
  state: ExecutionState;
  executionId: string;
  result: JsonObject;
  isolation: string | null;
};

export type ExecuteInput = {
  tenantId: string;
  actionId: string;
  /** The hash the caller holds: execution refuses if it is not the current revision's. Null: none sent. */
  payloadHash: string | null;
  /** Who runs it: a member must be allowed to decide now, checked by the claim (actors.ts). */
  executor: Executor;
  actor: AuditActor;
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  signal?: AbortSignal;
  /**
   * An allowed proposal not written yet: `write` writes it first thing in the claim's transaction
   * (one commit for the proposal and its execution), and `action` is what it writes.
   */
  fresh?: { write: (tx: SqlClient) => Promise<ProposalWritten>; action: LockedAction };
};

/** A fresh proposal's write refused (ExecuteInput.fresh): nothing was written, and `refusal` says why. */
export class ProposalNotWritten extends Error {
  constructor(readonly refusal: Extract<ProposalWritten, { written: false }>["refusal"]) {
    super(`The proposal was not written: ${refusal}.`);
  }
}

const ABSENT_SNAPSHOT_HASH = snapshotHash(null);

/** The words a refusal carries to the person or agent that asked. */
const REFUSALS: Record<Exclude<ClaimRefusal, `not_executable.${string}`>, { status: number; message: string }> = {
  executor_not_allowed: { status: 403, message: "You may no longer decide actions in this organisation, so you cannot execute this one; ask a reviewer to run it." },
  not_found: { status: 404, message: "That action was not found." },
  already_executed: { status: 409, message: "This approval has already been used; an approval executes once." },
  expired: { status: 409, message: "The approval expired before it was executed." },
  hash_mismatch: { status: 409, message: "The payload does not match the approved hash; nothing was executed." },
  payload_tampered: { status: 409, message: "The stored payload does not match its approved hash; the approval was invalidated." },
  no_quorum: {
    status: 409,
    message: "The decisions on record do not make a quorum of eligible reviewers approving exactly this revision; nothing was executed.",
  },
  state_changed: { status: 409, message: "The state this approval rested on changed since review, so it was invalidated." },
  api_key_revoked: { status: 409, message: "The API key that proposed this action has been revoked, so its approval cannot be used; nothing was executed." },
  requester_inactive: {
    status: 409,
    message: "The member who requested this action is no longer an active member who may start tasks here, so its approval cannot be used; nothing was executed.",
  },
  agents_paused: { status: 423, message: agentsPausedError().message },
  session_ended: { status: 401, message: sessionEndedError().message },
};

const NOT_EXECUTABLE: Record<string, string> = {
  pending: "The action has not been approved (yet).",
  rejected: "The action was rejected.",
  cancelled: "The action was cancelled.",
  denied: "The policy denies this action.",
  invalidated: "The approval was invalidated.",
};

export type Claimed = {
  action: LockedAction;
  tool: ToolDefinition;
  args: JsonObject;
  executionId: string;
  idempotencyKey: string;
};

type Step =
  | { kind: "refused"; error: AppError }
  | { kind: "recorded"; outcome: ExecutionOutcome }
  | { kind: "deliver"; claimed: Claimed; applied: JsonObject };

/**
 * The one use of an approval. In one transaction that holds the action's lock: read the action
 * and its current revision, recompute the payload hash from what is stored, re-read the state the
 * decision rests on with its rows locked, and claim it with the one statement that checks every
 * rule (claim-approval.ts); then the tool's database effect, conditioned on exactly the verified
 * state, and the record of how it ended. So two executors never both act, an effect never sees
 * state the reviewers did not, and a refusal — or a crash — leaves nothing half done. Refusals
 * are audited in the same transaction; a changed state invalidates the approval there and queues
 * a fresh revision. Effects that leave the database (a sandbox run, SMTP) are delivered after the
 * commit, under a lease renewed from the database clock, and recorded when they end.
 */
export function executeAction(db: Db, input: ExecuteInput): Promise<ExecutionOutcome> {
  // From here to the record of its outcome, this approval's statements go ahead of new work.
  return urgently(async () => {
    let attempt: Attempt = { kind: "apply" };
    let step: Step;
    for (;;) {
      try {
        step = await sqlTransaction(db, (tx) => claimAndApply(tx, input, attempt));
        break;
      } catch (error) {
        // The effect could not be written: its transaction — claim included — was rolled back,
        // and a second one records why, through the same claim (nothing else has moved meanwhile
        // that the claim would not see).
        if (!(error instanceof EffectUndone) || attempt.kind !== "apply") throw error;
        attempt = error.next;
      }
    }
    void requestSeal(db, input.tenantId);
    if (step.kind === "refused") throw markAudited(step.error);
    if (step.kind === "recorded") return step.outcome;
    return deliver(db, step.claimed, step.applied, input);
  });
}

/**
 * What a transaction of `executeAction` does after the claim: run the effect (the first attempt),
 * record that the effect failed, or — when the effect's own guard found the state moved —
 * re-queue the action as a changed state.
 */
type Attempt = { kind: "apply" } | { kind: "record_failure"; error: unknown } | { kind: "requeue" };

/** Thrown out of a transaction to roll it back whole; `next` says what the second attempt does. */
class EffectUndone extends Error {
  constructor(readonly next: Exclude<Attempt, { kind: "apply" }>) {
    super("The effect was undone with its claim.");
  }
}

async function claimAndApply(tx: SqlClient, input: ExecuteInput, attempt: Attempt): Promise<Step> {
  // What the claim judges besides the action — the memberships of a member who executes and of one
  // who requested it, the executing member's session, the stop button's gate — held before the
  // action: the lock order a role change keeps (lock-acting-membership.ts).
  if (isUuid(input.actionId)) {
    const member = input.executor.type === "member" ? input.executor : null;
    const { sessionLive } = await lockExecutionStanding(tx, {
      tenantId: input.tenantId, userId: member?.userId ?? null, sessionId: member?.sessionId ?? null, actionId: input.actionId,
      requesterUserId: input.fresh?.action.requesterUserId ?? null,
    });
    if (!sessionLive) return refuse(tx, input, null, "session_ended");
  }
  let action: LockedAction | null;
  let recomputed: string;
  if (input.fresh) {
    const written = await input.fresh.write(tx);
    if (!written.written) throw new ProposalNotWritten(written.refusal);
    // Written a statement ago by this transaction, which no other can see or lock: what is stored
    // is what was hashed, so the claim checks the stored hashes against that hash (no re-hash).
    action = input.fresh.action;
    recomputed = action.payloadHash;
  } else {
    action = await lockAction(tx, { tenantId: input.tenantId, actionId: input.actionId });
    if (!action) return refuse(tx, input, null, "not_found");
    const stored = revisionPayloadOf(action);
    recomputed = fitsWithin(stored, INLINE_CHARS) ? revisionHash(stored).hash : (await runCompute(hashRevisionTask, stored, { what: "stored payload" })).hash;
  }
  const tool = await findTenantTool(tx, input.tenantId, action.tool);
  const args = toolArgsOf(action);
  // The state the decision rests on, read again with its rows locked until this transaction ends
  // — only for an approval that could run; anything else is refused before it matters.
  const live = action.status === "approved" && !action.consumed ? await readLiveState(tx, { tenantId: input.tenantId, tool, args, lock: true }) : null;
  const executionId = randomUUID();
  const idempotencyKey = idempotencyKeyFor(action.id, action.revision, recomputed);
  const base = {
    tenantId: input.tenantId, actor: input.actor, subject: { type: "action", id: action.id }, actionId: action.id,
    tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel,
  };
  const claim = await claimApproval(tx, {
    tenantId: input.tenantId, actionId: action.id, revisionId: action.revisionId, callerHash: input.payloadHash,
    executingMemberId: input.executor.type === "member" ? input.executor.userId : null, recomputedHash: recomputed, liveSnapshot: live,
    // Re-queueing after the effect's guard tripped: the claim's last check (the state) refuses,
    // whatever the re-read says, once every other rule has passed.
    liveSnapshotHash: attempt.kind === "requeue" ? "moved" : snapshotHash(live), absentSnapshotHash: ABSENT_SNAPSHOT_HASH,
    executionId, idempotencyKey, claimedBy: PROCESS_ID, leaseSeconds: executionLeaseSeconds(),
    started: auditBodyOf({
      ...base, type: "execution.started", outcome: "ok", status: "executing",
      data: { executionId, revision: action.revision, payloadHash: recomputed, idempotencyKey },
    }),
  });
  if (claim.refusal === "state_changed") return stateChanged(tx, input, action, live);
  if (claim.refusal) return refuse(tx, input, action, claim.refusal);
  if (!tool) throw new Error(`Action ${action.id} passed its claim for a tool this build does not have: ${action.tool}`);

  const claimed: Claimed = { action, tool, args, executionId, idempotencyKey };
  if (attempt.kind === "record_failure") {
    return { kind: "recorded", outcome: await record(tx, claimed, failure(attempt.error, "failed"), 0, input.actor) };
  }
  // The effect's database writes, bound to the verified state. If they fail, or their guard
  // finds the state moved, the whole transaction is undone and the next attempt says so.
  let applied: Applied;
  try {
    applied = await tool.apply({ q: tx, tenantId: input.tenantId, actionId: action.id, idempotencyKey, verified: live }, args);
  } catch (error) {
    throw new EffectUndone({ kind: "record_failure", error });
  }
  if ("stateChanged" in applied) throw new EffectUndone({ kind: "requeue" });
  if (applied.deliver) return { kind: "deliver", claimed, applied: applied.result };
  return { kind: "recorded", outcome: await record(tx, claimed, { ok: applied.ok, result: applied.result }, 0, input.actor) };
}

/** A refusal, audited in the claim's transaction; expiry and a tampered payload also settle the action, and an approval whose approvals stopped counting goes back to the queue. */
async function refuse(tx: SqlClient, input: ExecuteInput, action: LockedAction | null, refusal: ClaimRefusal): Promise<Step> {
  const known = refusal.startsWith("not_executable.") ? null : REFUSALS[refusal as keyof typeof REFUSALS];
  const status = refusal.slice("not_executable.".length);
  const message = known?.message ?? NOT_EXECUTABLE[status] ?? `The action is ${status}.`;
  const base = {
    tenantId: input.tenantId, actor: input.actor, subject: { type: "action", id: action?.id ?? input.actionId }, actionId: action?.id ?? null,
    tool: action?.tool ?? null, riskLevel: action?.riskLevel ?? null, requester: action?.requesterLabel ?? null,
  };
  let details: unknown;
  let settled = false;
  let reopened = false;
  if (action && refusal === "expired") {
    settled = await settleAction(tx, {
      tenantId: input.tenantId, actionId: action.id, from: ["pending", "approved"], to: "expired",
      reason: "The approval window closed before execution.",
      event: auditBodyOf({ ...base, type: "action.expired", outcome: "ok", status: "expired", data: { revision: action.revision, detectedBy: "execution" } }),
    });
  } else if (action && refusal === "payload_tampered") {
    settled = await settleAction(tx, {
      tenantId: input.tenantId, actionId: action.id, from: ["pending", "approved"], to: "invalidated",
      reason: "The stored payload no longer matches its approved hash.",
      event: auditBodyOf({
        ...base, type: "action.invalidated", outcome: "refused", status: "invalidated",
        data: { reason: "hash_mismatch", expected: action.payloadHash, revision: action.revision },
      }),
    });
  } else if (action && refusal === "already_executed") {
    details = { execution: await readLatestExecution(tx, { tenantId: input.tenantId, actionId: action.id }) };
  } else if (action && refusal === "no_quorum") {
    // Approved, but its approvals no longer count (an approver disabled, say): back to the queue,
    // where reviewers can see it, rather than approved forever with nothing able to run it.
    reopened = (await reopenLostApprovals(tx, { cause: "quorum_lost", tenantId: input.tenantId, actionId: action.id }, input.actor)).length > 0;
  }
  if (!settled) {
    await insertAuditEvent(tx, auditBodyOf({
      ...base, type: "execution.refused", outcome: "refused", status: refusal,
      data: { code: refusal, message, actionId: input.actionId },
    }));
  }
  // A tampered payload keeps the code agents already handle; its message says it was invalidated.
  const code = refusal === "payload_tampered" ? "hash_mismatch" : refusal;
  const said = reopened ? `${message} It is back in the review queue.` : message;
  return { kind: "refused", error: new AppError(code, said, known?.status ?? 409, details) };
}

/**
 * The state the approval rested on is not what the reviewers saw: the approval is invalidated and
 * revision n+1 — the same arguments over the state as it is now, with the before/after as its
 * diff — goes back to the queue, in this transaction. When the state no longer exists at all
 * (e.g. the invoice is gone), or the arguments no longer fit the tool (an upstream MCP tool whose
 * newly pinned schema refuses them), there is nothing to re-propose: the action is invalidated.
 */
async function stateChanged(tx: SqlClient, input: ExecuteInput, action: LockedAction, live: JsonObject | null): Promise<Step> {
  const tool = await findTenantTool(tx, input.tenantId, action.tool);
  const base = {
    tenantId: input.tenantId, actor: input.actor, subject: { type: "action", id: action.id }, actionId: action.id,
    tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel,
  };
  const invalidatedFor = (reason: "state_changed" | "arguments_refused", detail?: string) => auditBodyOf({
    ...base, type: "action.invalidated", outcome: "refused", status: "invalidated",
    data: { reason, revision: action.revision, before: snapshotHash(action.requestSnapshot), after: snapshotHash(live), ...(detail ? { detail } : {}) },
  });
  const invalidated = invalidatedFor("state_changed");
  let noLongerFits: string | null = null;
  if (tool && !(live && "missing" in live)) {
    const next = await createNextRevision(tx, {
      action, tool, args: toolArgsOf(action), origin: "re-proposed: the state it rests on changed", createdByUserId: null,
      actor: input.actor, snapshotChange: { before: action.requestSnapshot, after: live }, precedingEvents: [invalidated],
      invalidArgs: { message: `Its arguments do not fit ${tool.name} as it is now`, status: 409 },
    }).catch((error: unknown) => {
      // Refused before it read or wrote anything: the action cannot be re-proposed, so it is invalidated below.
      if (error instanceof ArgumentsRefused) return error.message;
      throw error;
    });
    if (typeof next === "string") noLongerFits = next;
    else return {
      kind: "refused",
      error: new AppError("state_changed", `${REFUSALS.state_changed.message} Revision ${next.revision} waits for a fresh decision.`, 409, {
        revision: next.revision, payloadHash: next.payloadHash,
      }),
    };
  }
  await settleAction(tx, {
    tenantId: input.tenantId, actionId: action.id, from: ["approved"], to: "invalidated",
    reason: noLongerFits ? `${noLongerFits}.` : `The state this approval rested on no longer exists${live && typeof live.missing === "string" ? ` (${live.missing})` : ""}.`,
    event: noLongerFits ? invalidatedFor("arguments_refused", noLongerFits) : invalidated,
  });
  return { kind: "refused", error: new AppError("state_changed", REFUSALS.state_changed.message, 409) };
}

function failure(error: unknown, state: "failed" | "unknown"): ToolOutcome & { state: ExecutionState } {
  const known = isAppError(error) || error instanceof OutcomeUnknownError;
  const message = known ? error.message : "The tool failed unexpectedly; see the server log.";
  if (!known) console.error("[countersign] an effect failed:", error);
  return { ok: false, result: { error: message }, state };
}

/** The delivery of a claimed effect after its claim committed, under a lease it keeps renewing. */
async function deliver(db: Db, claimed: Claimed, applied: JsonObject, input: ExecuteInput): Promise<ExecutionOutcome> {
  const { action, tool } = claimed;
  const started = performance.now();
  const abort = new AbortController();
  const onCallerGone = () => abort.abort();
  input.signal?.addEventListener("abort", onCallerGone, { once: true });
  if (input.signal?.aborted) abort.abort();
  const live = liveExecutionOutput(db, action.tenantId, claimed.executionId);
  const leaseSeconds = executionLeaseSeconds();
  // Renewed at a third of its length; a lost lease (recovery took over) stops the delivery.
  const renewal = setInterval(() => {
    void renewExecutionLease(db, { executionId: claimed.executionId, claimedBy: PROCESS_ID, leaseSeconds })
      .then((held) => held || abort.abort())
      .catch((error: unknown) => console.error("[countersign] renewing an execution lease failed:", error));
  }, Math.max(200, (leaseSeconds * 1000) / 3));
  let outcome: ToolOutcome & { state?: ExecutionState };
  try {
    if (!tool.deliver) throw new Error(`${tool.name} asked for a delivery it does not implement.`);
    outcome = await tool.deliver(
      {
        q: db, tenantId: action.tenantId, idempotencyKey: claimed.idempotencyKey, sandboxSpec: action.sandboxSpec, applied,
        approvedDatasets: datasetRefsOf(action),
        onOutput: (stream, text) => {
          live.push(stream, text);
          input.onOutput?.(stream, text);
        },
        signal: abort.signal,
      },
      claimed.args,
    );
  } catch (error) {
    // Refused before anything left (an AppError says so); otherwise it may have happened: a person decides.
    outcome = failure(error, isAppError(error) ? "failed" : "unknown");
  } finally {
    clearInterval(renewal);
    input.signal?.removeEventListener("abort", onCallerGone);
    await live.stop();
  }
  const durationMs = Math.round(performance.now() - started);
  const recorded = outcome.artifacts?.length
    ? await recordWithArtifacts(db, claimed, outcome, durationMs, input.actor)
    : await record(db, claimed, outcome, durationMs, input.actor);
  void requestSeal(db, action.tenantId);
  return recorded;
}

/**
 * The record and the files the run left, in one transaction: all of them with the record, or —
 * when this delivery lost its lease and recovery recorded the execution first — none. Each file's
 * insert checks that the execution is still this delivery's, but a recovery can commit between
 * those inserts and the record (a file's row does not lock out recovery's update): what decides is
 * whether the record itself was written, in the transaction that holds the files.
 * Exported for its tests.
 */
export async function recordWithArtifacts(
  db: Db,
  claimed: Claimed,
  outcome: ToolOutcome & { state?: ExecutionState },
  durationMs: number,
  actor: AuditActor,
): Promise<ExecutionOutcome> {
  const lost = new Error("lease lost before the artifacts were stored");
  try {
    return await sqlTransaction(db, async (tx) => {
      for (const artifact of outcome.artifacts ?? []) {
        const stored = await insertExecutionArtifact(tx, {
          id: artifact.id, tenantId: claimed.action.tenantId, executionId: claimed.executionId, name: artifact.name,
          contentType: artifact.contentType, sha256: artifact.sha256, data: artifact.bytes, claimedBy: PROCESS_ID,
        });
        if (!stored) throw lost;
      }
      const written = await writeRecord(tx, claimed, outcome, durationMs, actor);
      if (!written.recorded) throw lost;
      return written.outcome;
    });
  } catch (error) {
    if (error !== lost) throw error;
    // Recovery holds the record: report what it says, without the files.
    return record(db, claimed, outcome, durationMs, actor);
  }
}

/** Records how an execution ended, and reports the state the record holds. */
async function record(
  q: SqlClient | Db,
  claimed: Claimed,
  outcome: ToolOutcome & { state?: ExecutionState },
  durationMs: number,
  actor: AuditActor,
): Promise<ExecutionOutcome> {
  return (await writeRecord(q, claimed, outcome, durationMs, actor)).outcome;
}

/** `record`, also saying whether this call wrote the record (false: recovery had recorded it first). */
async function writeRecord(
  q: SqlClient | Db,
  claimed: Claimed,
  outcome: ToolOutcome & { state?: ExecutionState },
  durationMs: number,
  actor: AuditActor,
): Promise<{ outcome: ExecutionOutcome; recorded: boolean }> {
  const { action } = claimed;
  const state: ExecutionState = outcome.state ?? (outcome.ok ? "succeeded" : "failed");
  const result = outcome.result;
  const isolation = outcome.isolation ?? (action.kind === "code" ? null : "in-process");
  const written = await writeExecutionRecord(q, {
    tenantId: action.tenantId, executionId: claimed.executionId, actionId: action.id, taskId: action.taskId, claimedBy: PROCESS_ID,
    state, result, isolation, durationMs,
    ended: auditBodyOf({
      tenantId: action.tenantId, actor, type: `execution.${state}`, outcome: state === "succeeded" ? "ok" : "error",
      subject: { type: "execution", id: claimed.executionId }, tool: action.tool, requester: action.requesterLabel, actionId: action.id,
      status: state,
      data: {
        executionId: claimed.executionId, revision: action.revision, isolation, durationMs,
        error: typeof result.error === "string" ? result.error : null,
        exitCode: typeof result.exit_code === "number" ? result.exit_code : null,
      },
    }),
  });
  const recordedState = (["succeeded", "failed", "unknown"] as const).find((s) => s === written.state) ?? "unknown";
  return { outcome: { state: recordedState, executionId: claimed.executionId, result, isolation }, recorded: written.recorded };
}
