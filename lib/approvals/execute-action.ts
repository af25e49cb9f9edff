import { createHash, randomBytes, randomUUID } from "node:crypto";
import { requestSeal, thenSeal } from "@/lib/audit/seal-audit-chain";
import os from "node:os";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db, DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { appendAuditEvent, auditAppendCtes, type AuditActor } from "@/lib/audit/append-audit-event";
import { hasPool, jsonParam as json, sqlQuery, urgently } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { takeKnownPayload, type KnownPayload } from "@/lib/approvals/known-payloads";
import { requireTool } from "@/lib/tools/registry";
import type { ToolOutcome } from "@/lib/tools/tool";
import { revisionHash, toolArgsOf } from "@/lib/approvals/action-revision";
import { createNextRevision } from "@/lib/approvals/create-revision";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { liveExecutionOutput } from "@/lib/approvals/live-output";
import { markTaskRunnable, wakeTaskSql } from "@/lib/approvals/task-wakeup";

/** Identifies this process in execution claims, so recovery knows whose lease lapsed. */
export const PROCESS_ID = `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

/** How long an execution may run before another process may treat it as crashed. */
export function executionLeaseMs(): number {
  return Number(process.env.COUNTERSIGN_EXECUTION_LEASE_MS ?? 180_000);
}

/** Derived from the approval, so every retry of one execution carries the same key. */
export function idempotencyKeyFor(actionId: string, revision: number, hash: string): string {
  return `cs1_${createHash("sha256").update(`${actionId}:${revision}:${hash}`).digest("hex").slice(0, 40)}`;
}

export type ExecutionOutcome = {
  state: "succeeded" | "failed" | "unknown";
  executionId: string;
  result: JsonObject;
  isolation: string | null;
};

export type ExecuteInput = {
  tenantId: string;
  actionId: string;
  /** The hash the caller holds: execution refuses if it is not the approved one. */
  payloadHash: string;
  actor: AuditActor;
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  signal?: AbortSignal;
};

export type Claimed = {
  executionId: string;
  actionId: string;
  idempotencyKey: string;
  revision: number;
  args: JsonObject;
  sandboxSpec: JsonObject | null;
  taskId: string | null;
  tool: string;
  requesterLabel: string;
  /** The live state checked against the request snapshot just before the claim (not on recovery). */
  verifiedState?: JsonObject | null;
};

/** Why a claim failed, in words, from the action's current row. */
async function refusalFor(db: DbTx, input: ExecuteInput): Promise<AppError> {
  const rows = await db.$queryRaw<Array<{ status: string; consumedAt: Date | null; payloadHash: string; expired: boolean }>>`
    SELECT status::text, "consumedAt", "payloadHash", ("expiresAt" IS NOT NULL AND "expiresAt" <= now()) AS expired
    FROM "Action" WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid`;
  const row = rows[0];
  if (!row) return new AppError("not_found", "That action was not found.", 404);
  if (row.consumedAt || ["executing", "succeeded", "failed", "unknown"].includes(row.status)) {
    const execution = await db.execution.findFirst({
      where: { actionId: input.actionId, tenantId: input.tenantId },
      orderBy: { startedAt: "desc" },
      select: { id: true, status: true, result: true, isolation: true },
    });
    return new AppError("already_executed", "This approval has already been used; an approval executes once.", 409, { execution });
  }
  if (row.status === "expired" || row.expired) return new AppError("expired", "The approval expired before it was executed.", 409);
  if (row.payloadHash !== input.payloadHash) {
    return new AppError("hash_mismatch", "The payload does not match the approved hash; nothing was executed.", 409);
  }
  const messages: Record<string, string> = {
    pending: "The action has not been approved (yet).",
    rejected: "The action was rejected.",
    cancelled: "The action was cancelled.",
    denied: "The policy denies this action.",
    invalidated: "The approval was invalidated.",
  };
  return new AppError(`not_executable.${row.status}`, messages[row.status] ?? `The action is ${row.status}.`, 409);
}

type ApprovalState = KnownPayload & {
  status: string;
  consumed: boolean;
  expired: boolean;
  payloadHash: string;
  currentRevision: number;
  revisionHash: string;
};


/**
 * The one use of an approval: claim it, recompute its hash from the stored payload, re-read the
 * TOCTOU snapshot, create the execution with its idempotency key, run the effect and record
 * succeeded / failed / unknown.
 *
 * The common case takes three statements before the effect: read the approval with its current
 * revision and request snapshot (skipped when this process proposed it: known-payloads.ts);
 * recompute the hash and re-read the live state, comparing it with the request snapshot; then one
 * statement that claims the approval with a single conditional UPDATE (approved, unconsumed,
 * unexpired by the database clock, same revision and hash, the stored payload and request
 * snapshot exactly those just checked) and, only if that claimed it, stores the pre-execution
 * snapshot, creates the execution and appends the audit event. Anything else — a refusal, a hash that does not recompute, a changed snapshot, a lost
 * race — takes the transactional path (`executeInTransaction`), which decides it with the claim
 * first and records the invalidation or refusal.
 */
export function executeAction(db: Db, input: ExecuteInput): Promise<ExecutionOutcome> {
  // From here to the record of its outcome, this approval's statements go ahead of new work.
  return urgently(() => executeApproved(db, input));
}

async function executeApproved(db: Db, input: ExecuteInput): Promise<ExecutionOutcome> {
  // Prepared statements with generic plans: tenant and status are compared as text so the primary
  // key is the only index they can use (see decideAction).
  if (!hasPool(db)) return executeInTransaction(db, input);
  let row: KnownPayload | undefined = takeKnownPayload(input.actionId, input.payloadHash);
  if (!row) {
    const [read] = await sqlQuery<ApprovalState>(db, Prisma.sql`
      SELECT a.status::text AS status, a."consumedAt" IS NOT NULL AS consumed,
        (a."expiresAt" IS NULL OR a."expiresAt" <= now()) AS expired, a."payloadHash", a."currentRevision",
        a.kind::text AS kind, a.tool, a."taskId", a."requesterLabel", a."riskLevel"::text AS "riskLevel",
        r.id AS "revisionId", r.revision, r.args, r.code, r.language, r."sandboxSpec", r."policyVersion",
        r."payloadHash" AS "revisionHash",
        (SELECT s.hash FROM "Snapshot" s WHERE s."actionId" = a.id AND s."revisionId" = r.id AND s.phase = 'request' LIMIT 1) AS "requestSnapshotHash"
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.status = 'current'
      WHERE a.id = ${input.actionId}::uuid AND a."tenantId"::text = ${input.tenantId}`);
    if (
      !read || read.status !== "approved" || read.consumed || read.expired || read.payloadHash !== input.payloadHash ||
      read.revisionHash !== read.payloadHash || read.revision !== read.currentRevision
    ) {
      return executeInTransaction(db, input);
    }
    row = read;
  }
  const payloadHash = input.payloadHash;
  const recomputed = revisionHash({
    tenantId: input.tenantId, tool: row.tool, kind: row.kind, args: row.kind === "code" ? null : row.args,
    code: row.code, language: row.language, sandboxSpec: row.sandboxSpec, revision: row.revision, policyVersion: row.policyVersion,
  });
  if (recomputed.hash !== payloadHash) return executeInTransaction(db, input);
  const tool = requireTool(row.tool);
  const args = toolArgsOf(row);
  // TOCTOU: the state the decision rests on must be what the reviewers saw.
  const now = await tool.snapshot({ db, tenantId: input.tenantId }, args);
  const nowHash = snapshotHash(now);
  if ((row.requestSnapshotHash ?? snapshotHash(null)) !== nowHash) return executeInTransaction(db, input);

  const executionId = randomUUID();
  const idempotencyKey = idempotencyKeyFor(input.actionId, row.revision, payloadHash);
  const audit = auditAppendCtes({
    tenantId: input.tenantId, actor: input.actor, subject: { type: "action", id: input.actionId }, actionId: input.actionId,
    tool: row.tool, riskLevel: row.riskLevel, requester: row.requesterLabel,
    type: "execution.started", outcome: "ok", status: "executing",
    data: { executionId, revision: row.revision, payloadHash, idempotencyKey },
  }, { gate: "claim" });
  const started = await sqlQuery<{ id: string }>(db, Prisma.sql`
    WITH claim AS (
      UPDATE "Action" SET status = 'executing', "consumedAt" = now(), "updatedAt" = now()
      WHERE id = ${input.actionId}::uuid AND "tenantId"::text = ${input.tenantId}
        AND status::text = 'approved' AND "consumedAt" IS NULL AND "expiresAt" > now()
        AND "payloadHash" = ${payloadHash} AND "currentRevision" = ${row.revision}
        AND tool = ${row.tool} AND kind::text = ${row.kind}
        -- The payload just hashed is the one stored, and the request snapshot is the one compared.
        AND EXISTS (
          SELECT 1 FROM "ActionRevision" r
          WHERE r.id = ${row.revisionId}::uuid AND r."actionId" = ${input.actionId}::uuid AND r.status::text = 'current'
            AND r.revision = ${row.revision} AND r."payloadHash" = ${payloadHash} AND r."policyVersion" = ${row.policyVersion}
            AND r.args IS NOT DISTINCT FROM ${json(row.args)}::jsonb AND r.code IS NOT DISTINCT FROM ${row.code}::text
            AND r.language IS NOT DISTINCT FROM ${row.language}::text
            AND r."sandboxSpec" IS NOT DISTINCT FROM ${json(row.sandboxSpec)}::jsonb)
        AND (SELECT s.hash FROM "Snapshot" s
             WHERE s."actionId" = ${input.actionId}::uuid AND s."revisionId" = ${row.revisionId}::uuid AND s.phase = 'request'
             LIMIT 1) IS NOT DISTINCT FROM ${row.requestSnapshotHash}::text
      RETURNING id
    ),
    ${audit},
    pre AS (
      INSERT INTO "Snapshot" (id, "tenantId", "actionId", "revisionId", phase, data, hash)
      SELECT ${randomUUID()}::uuid, ${input.tenantId}::uuid, ${input.actionId}::uuid, ${row.revisionId}::uuid,
        'pre_execution', ${JSON.stringify(now ?? {})}::jsonb, ${nowHash}
      FROM audit
    ),
    execution AS (
      INSERT INTO "Execution" (id, "tenantId", "actionId", revision, "idempotencyKey", "claimedBy", "leaseExpiresAt")
      SELECT ${executionId}::uuid, ${input.tenantId}::uuid, ${input.actionId}::uuid, ${row.revision}, ${idempotencyKey},
        ${PROCESS_ID}, now() + make_interval(secs => ${executionLeaseMs() / 1000})
      FROM audit
      RETURNING id
    )
    SELECT id FROM execution`);
  // Another executor claimed it first, or it changed meanwhile: the transactional path says which.
  if (started.length === 0) return executeInTransaction(db, input);
  void requestSeal(db, input.tenantId);
  const claimed: Claimed = {
    executionId, actionId: input.actionId, idempotencyKey, revision: row.revision, args, sandboxSpec: row.sandboxSpec,
    taskId: row.taskId, tool: row.tool, requesterLabel: row.requesterLabel, verifiedState: now,
  };
  return runClaimedExecution(db, input.tenantId, claimed, input);
}

/**
 * The same use of an approval in one transaction, claim first: the conditional UPDATE, the hash
 * recomputed, the TOCTOU snapshot re-read (invalidating the approval and queueing a fresh
 * revision if it changed), and the execution created; or the refusal, audited.
 */
async function executeInTransaction(db: Db, input: ExecuteInput): Promise<ExecutionOutcome> {
  type ClaimResult =
    | { ok: true; claimed: Claimed }
    // `audited`: the refusal was recorded inside the transaction (it also changed state).
    | { ok: false; error: AppError; audited: boolean };
  const claim = await thenSeal(db, input.tenantId, db.$transaction(async (tx): Promise<ClaimResult> => {
    const claimedRows = await tx.$queryRaw<Array<{ id: string }>>`
      UPDATE "Action" SET status = 'executing', "consumedAt" = now(), "updatedAt" = now()
      WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid
        AND status = 'approved' AND "consumedAt" IS NULL AND "expiresAt" > now()
        AND "payloadHash" = ${input.payloadHash}
      RETURNING id`;
    if (claimedRows.length === 0) return { ok: false, error: await refusalFor(tx, input), audited: false };

    const action = await tx.action.findFirstOrThrow({
      where: { id: input.actionId, tenantId: input.tenantId },
      include: { revisions: { where: { status: "current" } } },
    });
    const revision = action.revisions[0];
    const tool = requireTool(action.tool);
    const args = toolArgsOf({ kind: action.kind, args: revision.args as JsonObject | null, code: revision.code, language: revision.language });
    const recomputed = revisionHash({
      tenantId: action.tenantId, tool: action.tool, kind: action.kind,
      args: action.kind === "code" ? null : (revision.args as JsonObject | null),
      code: revision.code, language: revision.language, sandboxSpec: revision.sandboxSpec as JsonObject | null,
      revision: revision.revision, policyVersion: revision.policyVersion,
    });
    const base = {
      tenantId: action.tenantId, actor: input.actor, subject: { type: "action", id: action.id }, actionId: action.id,
      tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel,
    };
    if (recomputed.hash !== action.payloadHash || recomputed.hash !== revision.payloadHash || revision.revision !== action.currentRevision) {
      await tx.action.update({
        where: { id: action.id },
        data: { status: "invalidated", statusReason: "The stored payload no longer matches its approved hash." },
      });
      await appendAuditEvent(tx, {
        ...base, type: "action.invalidated", outcome: "refused", status: "invalidated",
        data: { reason: "hash_mismatch", expected: action.payloadHash, recomputed: recomputed.hash, revision: revision.revision },
      });
      await markTaskRunnable(tx, action.taskId);
      return {
        ok: false,
        audited: true,
        error: new AppError("hash_mismatch", "The stored payload does not match its approved hash; the approval was invalidated.", 409),
      };
    }

    // TOCTOU: the state the decision rests on must be what the reviewers saw.
    const before = await tx.snapshot.findFirst({
      where: { actionId: action.id, revisionId: revision.id, phase: "request" },
      select: { data: true, hash: true },
    });
    const now = await tool.snapshot({ db: tx, tenantId: action.tenantId }, args);
    const nowHash = snapshotHash(now);
    if ((before?.hash ?? snapshotHash(null)) !== nowHash) {
      await tx.snapshot.create({
        data: { tenantId: action.tenantId, actionId: action.id, revisionId: revision.id, phase: "pre_execution", data: now ?? {}, hash: nowHash },
      });
      await appendAuditEvent(tx, {
        ...base, type: "action.invalidated", outcome: "refused", status: "invalidated",
        data: { reason: "state_changed", revision: revision.revision, before: before?.hash ?? null, after: nowHash },
      });
      const next = await createNextRevision(tx, {
        tenantId: action.tenantId, actionId: action.id, fromRevision: revision.revision, tool, args,
        origin: "re-proposed: the state it rests on changed", createdByUserId: null, actor: input.actor,
        snapshotChange: { before: (before?.data as JsonObject | undefined) ?? null, after: now },
      });
      await markTaskRunnable(tx, action.taskId);
      return {
        ok: false,
        audited: true,
        error: new AppError(
          "state_changed",
          `The state this approval rested on changed since review, so it was invalidated. Revision ${next.revision} waits for a fresh decision.`,
          409,
          { revision: next.revision, payloadHash: next.payloadHash },
        ),
      };
    }

    const idempotencyKey = idempotencyKeyFor(action.id, revision.revision, revision.payloadHash);
    await tx.snapshot.create({
      data: { tenantId: action.tenantId, actionId: action.id, revisionId: revision.id, phase: "pre_execution", data: now ?? {}, hash: nowHash },
    });
    const execution = await tx.execution.create({
      data: {
        tenantId: action.tenantId, actionId: action.id, revision: revision.revision, idempotencyKey,
        claimedBy: PROCESS_ID, leaseExpiresAt: new Date(Date.now() + executionLeaseMs()),
      },
    });
    await appendAuditEvent(tx, {
      ...base, type: "execution.started", outcome: "ok", status: "executing",
      data: { executionId: execution.id, revision: revision.revision, payloadHash: revision.payloadHash, idempotencyKey },
    });
    return {
      ok: true,
      claimed: {
        executionId: execution.id, actionId: action.id, idempotencyKey, revision: revision.revision, args,
        sandboxSpec: revision.sandboxSpec as JsonObject | null, taskId: action.taskId, tool: action.tool,
        requesterLabel: action.requesterLabel, verifiedState: now,
      },
    };
  }));

  if (!claim.ok) {
    if (claim.audited) throw claim.error;
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "execution.refused", outcome: "refused",
      subject: { type: "action", id: input.actionId }, actionId: null, status: claim.error.code,
      data: { code: claim.error.code, message: claim.error.message, actionId: input.actionId },
    });
    throw claim.error;
  }
  return runClaimedExecution(db, input.tenantId, claim.claimed, input);
}

/** Runs the effect of a claimed execution and records how it ended. Also used by crash recovery. */
export async function runClaimedExecution(
  db: Db,
  tenantId: string,
  claimed: Claimed,
  options: Pick<ExecuteInput, "actor" | "onOutput" | "signal">,
): Promise<ExecutionOutcome> {
  const tool = requireTool(claimed.tool);
  const started = performance.now();
  const live = liveExecutionOutput(db, tenantId, claimed.executionId);
  let outcome: ToolOutcome;
  let state: ExecutionOutcome["state"];
  try {
    outcome = await tool.execute({ db, tenantId }, claimed.args, claimed.idempotencyKey, {
      onOutput: (stream, text) => {
        live.push(stream, text);
        options.onOutput?.(stream, text);
      },
      signal: options.signal,
      sandboxSpec: claimed.sandboxSpec,
      verifiedState: claimed.verifiedState,
    });
    state = outcome.ok ? "succeeded" : "failed";
  } catch (error) {
    const message = error instanceof AppError ? error.message : "The tool failed unexpectedly; see the server log.";
    if (!(error instanceof AppError)) console.error(`[countersign] tool ${claimed.tool} failed:`, error);
    // An effect that cannot honour its key may have happened before the error: a person decides.
    state = tool.honoursIdempotencyKey(claimed.args) ? "failed" : "unknown";
    outcome = { ok: false, result: { error: message } };
  } finally {
    await live.stop();
  }
  return recordExecution(db, tenantId, claimed, { state, outcome, durationMs: Math.round(performance.now() - started) }, options.actor);
}

export async function recordExecution(
  db: Db,
  tenantId: string,
  claimed: Claimed,
  ended: { state: ExecutionOutcome["state"]; outcome: ToolOutcome; durationMs: number },
  actor: AuditActor,
): Promise<ExecutionOutcome> {
  const result = ended.outcome.result;
  const isolation = ended.outcome.isolation ?? (claimed.sandboxSpec ? null : "in-process");
  const audit = auditAppendCtes({
    tenantId, actor, type: `execution.${ended.state}`, outcome: ended.state === "succeeded" ? "ok" : "error",
    subject: { type: "execution", id: claimed.executionId }, tool: claimed.tool, requester: claimed.requesterLabel,
    actionId: claimed.actionId,
    status: ended.state,
    data: {
      executionId: claimed.executionId, revision: claimed.revision, isolation, durationMs: ended.durationMs,
      error: typeof result.error === "string" ? result.error : null,
      exitCode: typeof result.exit_code === "number" ? result.exit_code : null,
    },
  }, { gate: "ended" });
  // One statement: the execution (only if still executing: another process may have recorded it
  // first, after a lapsed lease), its action, the task's wake-up and the audit event.
  await sqlQuery(db, Prisma.sql`
    WITH ended AS (
      UPDATE "Execution" SET status = ${ended.state}::"ExecutionStatus", result = ${JSON.stringify(result)}::jsonb,
        isolation = ${isolation}, stdout = ${typeof result.stdout === "string" ? result.stdout : null},
        stderr = ${typeof result.stderr === "string" ? result.stderr : null},
        "exitCode" = ${typeof result.exit_code === "number" ? result.exit_code : null}::int,
        truncated = ${result.truncated === true}, "durationMs" = ${ended.durationMs}::int,
        "finishedAt" = now(), "leaseExpiresAt" = NULL
      WHERE id = ${claimed.executionId}::uuid AND "tenantId"::text = ${tenantId} AND status::text = 'executing'
      RETURNING id
    ),
    ${audit},
    action AS (
      UPDATE "Action" SET status = ${ended.state}::"ActionStatus", "updatedAt" = now()
      FROM audit WHERE "Action".id = ${claimed.actionId}::uuid
    ),
    wake AS (${wakeTaskSql(Prisma.sql`${claimed.taskId}::uuid`, Prisma.sql`EXISTS (SELECT 1 FROM audit)`)})
    SELECT 1 FROM audit`);
  void requestSeal(db, tenantId);
  return { state: ended.state, executionId: claimed.executionId, result, isolation };
}
