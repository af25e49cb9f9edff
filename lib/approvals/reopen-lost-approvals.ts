import type { Queryable } from "@/lib/db/sql";
import { auditTemplateOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { lockApprovalsInScope, reapproveActions, reopenActions, type LostApprovalScope } from "@/lib/db/statements/actions/reopen-lost-approvals";

/** Why approvals stopped counting, and who it names. */
export type LostApprovalCause =
  | { cause: "roles_removed"; tenantId: string; userId: string; member: string }
  | { cause: "passkey_removed"; passkeyId: string; tenantIds: string[]; member: string }
  | { cause: "quorum_lost"; tenantId: string; actionId: string };

function scopeOf(lost: LostApprovalCause): LostApprovalScope {
  switch (lost.cause) {
    case "roles_removed": return { kind: "member", tenantId: lost.tenantId, userId: lost.userId };
    case "passkey_removed": return { kind: "passkey", passkeyId: lost.passkeyId, tenantIds: lost.tenantIds };
    case "quorum_lost": return { kind: "action", tenantId: lost.tenantId, actionId: lost.actionId };
  }
}

function reasonOf(lost: LostApprovalCause): string {
  switch (lost.cause) {
    case "roles_removed": return `Back in review: ${lost.member}'s approval no longer counts, because their reviewer roles were removed`;
    case "passkey_removed": return `Back in review: ${lost.member} removed the passkey that signed their approval, so it no longer counts`;
    case "quorum_lost": return "Back in review: the approvals on record no longer make a quorum";
  }
}

/**
 * Puts back in the review queue every approved action, not yet run, whose approvals stopped
 * counting because of `lost` (approval-rules.ts decides what counts; a claim would refuse them
 * all). Call it in the transaction that made them stop counting, after the change: its locks and
 * its audit events (`action.reopened`, one per action) commit with it. Returns the ids reopened.
 */
export async function reopenLostApprovals(tx: Queryable, lost: LostApprovalCause, actor: AuditActor): Promise<string[]> {
  // Locks first, then judges: a change committed by another transaction before the locks were
  // granted (another removal, a vote) is seen by the judgement (reopen-lost-approvals.ts).
  const found = await lockApprovalsInScope(tx, scopeOf(lost));
  const events = found.map((action) => ({
    actionId: action.id,
    event: auditTemplateOf({
      tenantId: action.tenantId, actor, type: "action.reopened", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "pending",
      data: {
        revision: action.revision, cause: lost.cause,
        ...(lost.cause === "quorum_lost" ? {} : { member: lost.member }),
        ...(lost.cause === "passkey_removed" ? { passkeyId: lost.passkeyId } : {}),
      },
    }, ["approvals", "quorum"]),
  }));
  return reopenActions(tx, { events, reason: reasonOf(lost) });
}

/**
 * The other way round: a member was given a deciding role back, so their approvals count again.
 * Every action of that tenant they approved that is pending (reopened when the roles went) and
 * whose approvals now make its quorum is approved (`action.reapproved`, one per action),
 * in the transaction that gave the roles back; no vote of theirs could move it, since they have one
 * that counts. Returns the ids approved.
 */
export async function reapproveRegainedApprovals(
  tx: Queryable,
  regained: { tenantId: string; userId: string; member: string },
  actor: AuditActor,
): Promise<string[]> {
  const found = await lockApprovalsInScope(tx, { kind: "member", tenantId: regained.tenantId, userId: regained.userId }, { pendingOnly: true });
  const events = found.map((action) => ({
    actionId: action.id,
    event: auditTemplateOf({
      tenantId: action.tenantId, actor, type: "action.reapproved", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "approved",
      // The approval that counts again: found by reviewer and verdict like the vote that cast it.
      verdict: "approve", reviewerId: regained.userId,
      data: { revision: action.revision, cause: "roles_restored", member: regained.member },
    }, ["approvals", "quorum"]),
  }));
  return reapproveActions(tx, { events, reason: `Approved: ${regained.member}'s reviewer roles were given back, so their approval counts again` });
}
