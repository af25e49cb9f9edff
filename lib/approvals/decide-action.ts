import { randomUUID } from "node:crypto";
import { requestSeal, thenSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { hasPool, sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { AppError } from "@/lib/errors";
import { appendAuditEvent, auditAppendCtes } from "@/lib/audit/append-audit-event";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { markTaskRunnable, wakeTaskSql } from "@/lib/approvals/task-wakeup";
import { peekKnownPayload } from "@/lib/approvals/known-payloads";

export type DecideInput = {
  tenantId: string;
  actionId: string;
  reviewer: Member;
  verdict: Verdict;
  note?: string | null;
  /** The payload hash the reviewer was shown. */
  payloadHash: string;
};

export type DecisionOutcome = {
  status: "pending" | "approved" | "rejected";
  approvals: number;
  quorum: number;
  revision: number;
};

type Refusal = { error: AppError; expired?: boolean };

function statusReasonFor(status: "approved" | "rejected", note: string | null, approvals: number, quorum: number): string | null {
  return status === "rejected" ? note : `Approved by ${approvals} of ${quorum} required reviewers.`;
}

type VoteState = {
  status: string;
  expired: boolean;
  eligibleRoles: string[];
  requesterUserId: string | null;
  payloadHash: string;
  quorum: number;
  approvals: number;
  currentRevision: number;
  tool: string;
  riskLevel: RiskLevel;
  requesterLabel: string;
  taskId: string | null;
  revisionId: string;
  createdByUserId: string | null;
  voted: boolean;
};

/**
 * One reviewer's vote on the current revision. Checked on the server: tenant, status, expiry by
 * the database clock, eligible role, not the requester nor the editor of this revision, the hash
 * the reviewer saw, one vote per reviewer. A quorum of distinct approvers approves; one rejection
 * rejects. Every refusal is audited.
 *
 * The common case is two statements (one if this process proposed the action: known-payloads.ts):
 * a read, then one conditional UPDATE of the action row that also inserts the vote, wakes the task
 * and appends the audit event. The UPDATE re-checks everything the vote rests on — pending, same
 * revision, hash, quorum and approval count, unexpired, the reviewer eligible and neither the
 * requester nor the revision's author — so concurrent votes serialise on the row, a vote that
 * raced another writes nothing, and a second vote by the same reviewer fails on the unique
 * (revision, reviewer) index. Anything
 * else — a refusal, an expiry, a lost race — takes the locked path, which decides it under
 * FOR UPDATE and audits the outcome.
 */
export async function decideAction(db: Db, input: DecideInput): Promise<DecisionOutcome> {
  // These statements are prepared once per connection and run with a generic plan. Tenant and
  // status are compared as text so the primary key is the only index that plan can pick: with
  // statistics from when the table was small, it would otherwise pick (tenantId, status, …) and
  // filter every pending action of the tenant.
  if (!hasPool(db)) return decideUnderLock(db, input);
  const note = input.note?.trim() || null;
  const known = peekKnownPayload(input.actionId, input.payloadHash);
  const [row] = known
    ? [{ ...known, status: "pending", expired: false, voted: false, payloadHash: input.payloadHash, currentRevision: known.revision }]
    : await sqlQuery<VoteState>(db, Prisma.sql`
    SELECT a.status::text AS status, (a."expiresAt" IS NOT NULL AND a."expiresAt" <= now()) AS expired,
      a."eligibleRoles"::text[] AS "eligibleRoles", a."requesterUserId", a."payloadHash", a.quorum, a.approvals,
      a."currentRevision", a.tool, a."riskLevel"::text AS "riskLevel", a."requesterLabel", a."taskId",
      r.id AS "revisionId", r."createdByUserId",
      EXISTS (SELECT 1 FROM "Decision" d WHERE d."revisionId" = r.id AND d."reviewerId" = ${input.reviewer.userId}::uuid) AS voted
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.status = 'current'
    WHERE a.id = ${input.actionId}::uuid AND a."tenantId"::text = ${input.tenantId}`);
  const reviewerRoles: string[] = input.reviewer.roles;
  const clean =
    row && row.status === "pending" && !row.expired && !row.voted &&
    input.reviewer.roles.some((role) => row.eligibleRoles.includes(role)) &&
    row.requesterUserId !== input.reviewer.userId && row.createdByUserId !== input.reviewer.userId &&
    input.payloadHash === row.payloadHash && (input.verdict === "approve" || note !== null);
  if (!clean) return decideUnderLock(db, input);

  const approvals = row.approvals + (input.verdict === "approve" ? 1 : 0);
  const status = input.verdict === "reject" ? "rejected" : approvals >= row.quorum ? "approved" : "pending";
  const audit = auditAppendCtes({
    tenantId: input.tenantId, actor: memberAuditActor(input.reviewer), type: "decision.recorded", outcome: "ok",
    subject: { type: "action", id: input.actionId }, actionId: input.actionId, tool: row.tool, verdict: input.verdict,
    riskLevel: row.riskLevel, reviewerId: input.reviewer.userId, requester: row.requesterLabel, status,
    data: { revision: row.currentRevision, payloadHash: input.payloadHash, note, approvals, quorum: row.quorum },
  }, { gate: "vote" });
  const decided = status !== "pending";
  let written: Array<{ ok: number }>;
  try {
    written = await sqlQuery<{ ok: number }>(db, Prisma.sql`
      WITH vote AS (
        UPDATE "Action" SET approvals = ${approvals}, status = ${status}::"ActionStatus",
          "decidedAt" = CASE WHEN ${decided} THEN now() ELSE "decidedAt" END,
          "statusReason" = CASE WHEN ${decided} THEN ${decided ? statusReasonFor(status, note, approvals, row.quorum) : null} ELSE "statusReason" END,
          "updatedAt" = now()
        WHERE id = ${input.actionId}::uuid AND "tenantId"::text = ${input.tenantId} AND status::text = 'pending'
          AND approvals = ${row.approvals} AND "currentRevision" = ${row.currentRevision} AND "payloadHash" = ${row.payloadHash}
          AND quorum = ${row.quorum} AND ("expiresAt" IS NULL OR "expiresAt" > now())
          -- Eligible, and neither the requester nor the author of this revision.
          AND "eligibleRoles"::text[] && ${reviewerRoles}::text[]
          AND "requesterUserId" IS DISTINCT FROM ${input.reviewer.userId}::uuid
          AND EXISTS (
            SELECT 1 FROM "ActionRevision" r WHERE r.id = ${row.revisionId}::uuid AND r."actionId" = ${input.actionId}::uuid
              AND r.status::text = 'current' AND r."createdByUserId" IS DISTINCT FROM ${input.reviewer.userId}::uuid)
        RETURNING id, "taskId"
      ),
      ${audit},
      cast_vote AS (
        INSERT INTO "Decision" (id, "tenantId", "actionId", "revisionId", "reviewerId", verdict, note, "payloadHash")
        SELECT ${randomUUID()}::uuid, ${input.tenantId}::uuid, ${input.actionId}::uuid, ${row.revisionId}::uuid,
          ${input.reviewer.userId}::uuid, ${input.verdict}::"Verdict", ${note}, ${input.payloadHash}
        FROM audit
      ),
      wake AS (${wakeTaskSql(Prisma.sql`(SELECT "taskId" FROM vote)`, Prisma.sql`${decided}`)})
      SELECT 1 AS ok FROM audit`);
  } catch (error) {
    // The same reviewer's concurrent vote won the unique (revision, reviewer) index.
    if ((error as { code?: string }).code === "23505") return decideUnderLock(db, input);
    throw error;
  }
  if (written.length === 0) return decideUnderLock(db, input);
  void requestSeal(db, input.tenantId);
  if (known) known.approvals = approvals;
  return { status, approvals, quorum: row.quorum, revision: row.currentRevision };
}

/** The same decision with the action row locked FOR UPDATE first: every refusal and expiry goes here. */
async function decideUnderLock(db: Db, input: DecideInput): Promise<DecisionOutcome> {
  const note = input.note?.trim() || null;
  const actor = memberAuditActor(input.reviewer);
  const result = await thenSeal(db, input.tenantId, db.$transaction(async (tx): Promise<{ ok: true; outcome: DecisionOutcome } | { ok: false; refusal: Refusal }> => {
    const locked = await tx.$queryRaw<Array<{ id: string; expired: boolean }>>`
      SELECT id, ("expiresAt" IS NOT NULL AND "expiresAt" <= now()) AS expired FROM "Action"
      WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE`;
    if (locked.length === 0) return { ok: false, refusal: { error: new AppError("not_found", "That action was not found.", 404) } };
    const action = await tx.action.findFirstOrThrow({
      where: { id: input.actionId, tenantId: input.tenantId },
      include: { revisions: { where: { status: "current" }, select: { id: true, revision: true, createdByUserId: true } } },
    });
    const revision = action.revisions[0];
    const refuse = (code: string, message: string, status: number): { ok: false; refusal: Refusal } => ({
      ok: false, refusal: { error: new AppError(code, message, status, { status: action.status, revision: action.currentRevision }) },
    });

    if (action.status === "pending" && locked[0].expired) {
      await tx.action.update({ where: { id: action.id }, data: { status: "expired", decidedAt: new Date(), statusReason: "The approval window closed." } });
      await appendAuditEvent(tx, {
        tenantId: input.tenantId, actor, type: "action.expired", outcome: "ok", subject: { type: "action", id: action.id },
        actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "expired",
        data: { revision: action.currentRevision, detectedBy: "decision" },
      });
      await markTaskRunnable(tx, action.taskId);
      return { ok: false, refusal: { error: new AppError("expired", "This action expired before it was decided.", 409), expired: true } };
    }
    if (action.status !== "pending") return refuse("not_pending", `This action is ${action.status}; it can no longer be decided.`, 409);
    if (!input.reviewer.roles.some((role) => action.eligibleRoles.includes(role))) {
      return refuse("not_eligible", `Only ${action.eligibleRoles.join(" or ")} members may decide this action.`, 403);
    }
    if (action.requesterUserId === input.reviewer.userId) return refuse("self_approval", "You requested this action, so you cannot decide it.", 403);
    if (revision.createdByUserId === input.reviewer.userId) {
      return refuse("own_edit", "You wrote this revision, so another reviewer must decide it.", 403);
    }
    if (input.payloadHash !== action.payloadHash) {
      return refuse("stale_hash", `The action changed since you opened it; revision ${action.currentRevision} is current. Reload and review it.`, 409);
    }
    if (input.verdict === "reject" && !note) return refuse("reason_required", "A rejection needs a reason; it is sent back to the agent.", 400);
    const existing = await tx.decision.findUnique({
      where: { revisionId_reviewerId: { revisionId: revision.id, reviewerId: input.reviewer.userId } },
      select: { id: true },
    });
    if (existing) return refuse("already_voted", "You have already decided this revision; another reviewer must add the next vote.", 409);

    await tx.decision.create({
      data: {
        tenantId: input.tenantId, actionId: action.id, revisionId: revision.id, reviewerId: input.reviewer.userId,
        verdict: input.verdict, note, payloadHash: input.payloadHash,
      },
    });
    const approvals = await tx.decision.count({ where: { revisionId: revision.id, verdict: "approve", void: false } });
    const status = input.verdict === "reject" ? "rejected" : approvals >= action.quorum ? "approved" : "pending";
    await tx.action.update({
      where: { id: action.id },
      data: status === "pending"
        ? { approvals }
        : { approvals, status, decidedAt: new Date(), statusReason: statusReasonFor(status, note, approvals, action.quorum) },
    });
    if (status !== "pending") await markTaskRunnable(tx, action.taskId);
    // Last, so the tenant's audit head stays locked only until the commit.
    await appendAuditEvent(tx, {
      tenantId: input.tenantId, actor, type: "decision.recorded", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, verdict: input.verdict, riskLevel: action.riskLevel,
      reviewerId: input.reviewer.userId, requester: action.requesterLabel, status,
      data: { revision: revision.revision, payloadHash: input.payloadHash, note, approvals, quorum: action.quorum },
    });
    return { ok: true, outcome: { status, approvals, quorum: action.quorum, revision: revision.revision } };
  }));

  if (result.ok) return result.outcome;
  if (!result.refusal.expired) {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor, type: "decision.refused", outcome: "refused",
      subject: { type: "action", id: input.actionId }, verdict: input.verdict, reviewerId: input.reviewer.userId,
      status: result.refusal.error.code,
      data: { code: result.refusal.error.code, message: result.refusal.error.message, payloadHash: input.payloadHash, actionId: input.actionId },
    });
  }
  throw result.refusal.error;
}
