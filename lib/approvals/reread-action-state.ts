import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { sqlTransaction } from "@/lib/db/sql";
import { urgently } from "@/lib/scheduling/urgency";
import { AppError } from "@/lib/errors";
import { lockAction } from "@/lib/db/statements/actions/lock-action";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { sessionEndedError } from "@/lib/auth/session-ended";
import { readVoterStanding } from "@/lib/db/statements/actions/read-voter-standing";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { createNextRevision, type NextRevision } from "@/lib/approvals/create-next-revision";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { goneReason, readLiveState } from "@/lib/approvals/read-live-state";

const EXPIRED_MESSAGE = "The approval window has closed; there is nothing to re-read.";

export type RereadInput = {
  tenantId: string;
  actionId: string;
  member: Member;
  /** The hash of the revision the member was looking at. */
  payloadHash: string;
};

/**
 * "Re-read state": a pending action whose state changed since request gets revision n+1 — the
 * same arguments over the state as it is now, judged afresh (a refund that no longer fits what is
 * refundable is refused here) — the same model as the execution's re-proposal after a state
 * change, with the state's before/after as the diff. Runs under the action's lock; the votes on
 * revision n are void. The member may decide the new revision (the system, not they, wrote it).
 */
export async function rereadActionState(db: Db, input: RereadInput): Promise<NextRevision> {
  // Under the action's lock: ahead of new work for connections and compute threads (urgency.ts).
  const next = await sqlTransaction(db, (tx) => urgently(async () => {
    // The member's membership before the action (lock-acting-membership.ts), as an edit locks it.
    const { sessionLive } = await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.member.userId, sessionId: input.member.sessionId });
    if (!sessionLive) throw sessionEndedError();
    const action = await lockAction(tx, { tenantId: input.tenantId, actionId: input.actionId });
    if (!action) throw new AppError("not_found", "That action was not found.", 404);
    if (action.status !== "pending") {
      throw new AppError("not_pending", `This action is ${action.status}; only a pending action's state can be re-read.`, 409);
    }
    const standing = await readVoterStanding(tx, { tenantId: input.tenantId, actionId: action.id, memberId: input.member.userId });
    if (!standing || standing.refusal === "not_eligible") {
      throw new AppError("not_eligible", "Your roles in this organisation do not allow you to decide this action.", 403);
    }
    if (standing.expired) throw new AppError("expired", EXPIRED_MESSAGE, 409);
    if (input.payloadHash !== action.payloadHash) {
      throw new AppError("stale_hash", `The action changed since you opened it; revision ${action.currentRevision} is current.`, 409);
    }
    const tool = await findTenantTool(tx, input.tenantId, action.tool);
    if (!tool) throw new AppError("unknown_tool", `There is no tool named ${action.tool} here any more.`, 409);
    const args = toolArgsOf(action);
    const live = await readLiveState(tx, { tenantId: input.tenantId, tool, args, lock: true });
    // Gone is a change too, but there is no state now to judge a new revision over.
    const gone = goneReason(live);
    if (gone) throw new AppError("not_found", gone, 404);
    if (snapshotHash(live) === snapshotHash(action.requestSnapshot)) {
      throw new AppError("state_unchanged", "The state has not changed since request, so there is nothing to re-read: decide on this revision.", 409);
    }
    return createNextRevision(tx, {
      action, tool, args, origin: `state re-read by ${input.member.label}`, createdByUserId: null,
      actor: memberAuditActor(input.member), snapshotChange: { before: action.requestSnapshot, after: live }, whileOpen: EXPIRED_MESSAGE,
      invalidArgs: { message: `Its arguments do not fit ${tool.name} as it is now, so there is nothing to re-read: reject it`, status: 409 },
    });
  }));
  void requestSeal(db, input.tenantId);
  return next;
}
