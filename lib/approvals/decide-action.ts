import type { Db } from "@/lib/db/client";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { AppError } from "@/lib/errors";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { markTaskRunnable } from "@/lib/approvals/task-wakeup";

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

/**
 * One reviewer's vote on the current revision. Everything is checked on the server against the
 * row locked FOR UPDATE (votes on one action are serialised): tenant, status, expiry by the
 * database clock, eligible role, not the requester nor the editor of this revision, the hash the
 * reviewer saw, one vote per reviewer. A quorum of distinct approvers approves; one rejection
 * rejects. Every refusal is audited.
 */
export async function decideAction(db: Db, input: DecideInput): Promise<DecisionOutcome> {
  const note = input.note?.trim() || null;
  const actor = memberAuditActor(input.reviewer);
  const result = await db.$transaction(async (tx): Promise<{ ok: true; outcome: DecisionOutcome } | { ok: false; refusal: Refusal }> => {
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
    if (status !== "pending") {
      await tx.action.update({
        where: { id: action.id },
        data: { status, decidedAt: new Date(), statusReason: status === "rejected" ? note : `Approved by ${approvals} of ${action.quorum} required reviewers.` },
      });
    }
    if (status !== "pending") await markTaskRunnable(tx, action.taskId);
    // Last, so the tenant's audit head stays locked only until the commit.
    await appendAuditEvent(tx, {
      tenantId: input.tenantId, actor, type: "decision.recorded", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, verdict: input.verdict, riskLevel: action.riskLevel,
      reviewerId: input.reviewer.userId, requester: action.requesterLabel, status,
      data: { revision: revision.revision, payloadHash: input.payloadHash, note, approvals, quorum: action.quorum },
    });
    return { ok: true, outcome: { status, approvals, quorum: action.quorum, revision: revision.revision } };
  });

  if (result.ok) return result.outcome;
  if (!result.refusal.expired) {
    await db.$transaction((tx) =>
      appendAuditEvent(tx, {
        tenantId: input.tenantId, actor, type: "decision.refused", outcome: "refused",
        subject: { type: "action", id: input.actionId }, verdict: input.verdict, reviewerId: input.reviewer.userId,
        status: result.refusal.error.code,
        data: { code: result.refusal.error.code, message: result.refusal.error.message, payloadHash: input.payloadHash, actionId: input.actionId },
      }),
    );
  }
  throw result.refusal.error;
}
