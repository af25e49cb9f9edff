import { randomUUID } from "node:crypto";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { auditBodyOf, auditTemplateOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import type { Db } from "@/lib/db/client";
import { sqlTransaction, type SqlClient } from "@/lib/db/sql";
import { urgently } from "@/lib/scheduling/urgency";
import { slackVoteRefusal } from "@/lib/slack/slack-vote-refusal";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { AppError, markAudited } from "@/lib/errors";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { castVote, type MadeGrant, type VoteRefusal } from "@/lib/db/statements/actions/cast-vote";
import { voteGrantOf } from "@/lib/grants/vote-grant";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { sessionEndedError, slackUnlinkedError } from "@/lib/auth/session-ended";
import { lockAction, type LockedAction } from "@/lib/db/statements/actions/lock-action";
import { settleAction } from "@/lib/db/statements/actions/settle-action";
import { memberAuditActor, type Member } from "@/lib/approvals/actors";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { readLiveState } from "@/lib/approvals/read-live-state";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import { checkApprovalAssertion, type ApprovalAssertion } from "@/lib/passkeys/check-approval-assertion";

export type DecideInput = {
  tenantId: string;
  actionId: string;
  /** Who votes. Their roles are read from the database by the vote itself, never taken from here. */
  reviewer: Member;
  verdict: Verdict;
  note?: string | null;
  /** The payload hash the reviewer was shown. */
  payloadHash: string;
  /** The reviewer's passkey assertion over the approval receipt (lib/passkeys/start-signed-approval.ts), if any. */
  assertion?: ApprovalAssertion | null;
  /** Milliseconds the reviewer's page showed the arguments before this decision, as the client says. */
  viewedMs?: number | null;
  /** Where the vote was cast when not the console (a Slack message's button), for the audit record. */
  channel?: "slack";
  /** An approval of "this and calls like it": the standing grant's terms (lib/grants/grant-terms.ts), as sent. */
  grant?: unknown;
};

/** Longest time on screen recorded (a day); the vote clamps it further to the revision's age. */
export const MAX_VIEWED_MS = 86_400_000;

export type DecisionOutcome = {
  status: "pending" | "approved" | "rejected";
  approvals: number;
  quorum: number;
  revision: number;
  /** The standing grant this vote completed, if any. */
  grant?: MadeGrant | null;
};

/** What each refusal tells the reviewer. */
const REFUSALS: Record<Exclude<VoteRefusal, "not_pending" | "stale_hash" | "min_view_time">, { status: number; message: string }> = {
  not_found: { status: 404, message: "That action was not found." },
  expired: { status: 409, message: "This action expired before it was decided." },
  not_eligible: { status: 403, message: "Your roles in this organisation do not allow you to decide this action." },
  self_approval: { status: 403, message: "You requested this action, so you cannot decide it." },
  state_changed: {
    status: 409,
    message: "The state this action rests on changed since it was requested, so it cannot be approved: re-read the state and decide the new revision (or reject this one).",
  },
  key_creator: { status: 403, message: "You created the API key that requested this action, so you cannot decide it." },
  own_edit: { status: 403, message: "You wrote this revision, so another reviewer must decide it." },
  reason_required: { status: 400, message: "A rejection needs a reason; it is sent back to the agent." },
  already_voted: { status: 409, message: "You have already decided this revision; another reviewer must add the next vote." },
  signature_required: { status: 403, message: "This action's policy requires approving with your passkey; approve from the action page and confirm with your passkey." },
  signature_invalid: { status: 403, message: "The passkey signature could not be matched to a challenge from this console. Approve again." },
  signature_replayed: { status: 403, message: "This passkey signature was already used; each approval needs a fresh one. Approve again." },
  signature_foreign: { status: 403, message: "This passkey signature was asked for by another member or session. Approve again from your own session." },
  signature_expired: { status: 403, message: "The passkey request expired before you confirmed it. Approve again." },
  signature_credential: { status: 403, message: "That passkey is not one of your registered passkeys (or was removed). Use one of your own, listed on your account page." },
  signature_mismatch: { status: 409, message: "The passkey signed a receipt for something other than this revision. Reload the page and approve again." },
  signature_unverified: { status: 403, message: "Your authenticator did not verify you (PIN or biometric). Approve again and confirm with it." },
  signature_counter: { status: 403, message: "Your passkey's signature counter did not increase, so the signature may be a copy. Approve again; if it persists, remove that passkey." },
  grant_not_allowed: { status: 403, message: "This action's policy rule allows no standing grant that long (or none at all). Shorten it, or approve this action alone." },
};

function refusalError(
  refusal: VoteRefusal,
  state: { status: string; revision: number | null; minViewSeconds?: number | null; viewedMs?: number | null },
): AppError {
  const details = { status: state.status, revision: state.revision };
  if (refusal === "min_view_time") {
    const seconds = Math.floor((state.viewedMs ?? 0) / 1000);
    return new AppError(
      "min_view_time",
      `This action's policy asks you to review it for at least ${state.minViewSeconds} seconds before approving; it has been on your screen for ${seconds}. Read the arguments, then approve again.`,
      409,
      { ...details, minViewSeconds: state.minViewSeconds ?? null, viewedSeconds: seconds },
    );
  }
  if (refusal === "not_pending") return new AppError("not_pending", `This action is ${state.status}; it can no longer be decided.`, 409, details);
  if (refusal === "stale_hash") {
    return new AppError("stale_hash", `The action changed since you opened it; revision ${state.revision} is current. Reload and review it.`, 409, details);
  }
  const { status, message } = REFUSALS[refusal];
  // Approving through one's own API key is self-approval, said in its own words.
  const code = refusal === "key_creator" ? "self_approval" : refusal;
  return new AppError(code, message, status, refusal === "not_found" ? undefined : details);
}

/**
 * One reviewer's vote on the current revision. In one transaction holding the action's lock (and,
 * for an approval, the rows of the state it rests on, re-read now), the
 * vote statement (cast-vote.ts) checks everything it rests on and either records the vote — and,
 * with a quorum of valid approvals or a rejection, decides the action — or says why not. Every
 * refusal is audited in the same transaction; an expired action is marked expired there.
 */
export async function decideAction(db: Db, input: DecideInput): Promise<DecisionOutcome> {
  const note = input.note?.trim() || null;
  const actor = memberAuditActor(input.reviewer);
  const base: VoteAuditBase = {
    tenantId: input.tenantId, actor, subject: { type: "action", id: input.actionId }, verdict: input.verdict,
    reviewerId: input.reviewer.userId,
  };
  // Under the action's lock: ahead of new work for connections and compute threads (urgency.ts).
  const result = await sqlTransaction(db, (tx) => urgently(async (): Promise<{ ok: true; outcome: DecisionOutcome } | { ok: false; error: Error }> => {
    const refused = (error: Error, extra: RefusalSubject = {}) => auditRefusal(tx, input, base, error, extra);
    try {
      assertCanonicalizable({ note });
    } catch (error) {
      if (error instanceof InvalidPayloadError) return refused(error);
      throw error;
    }
    // The voter's membership, then the signing challenge and passkey, then the action: the order a
    // role change and a passkey's removal keep (lock-acting-membership.ts).
    const { sessionLive, slackLinkLive } = await lockActingMembership(tx, {
      tenantId: input.tenantId, userId: input.reviewer.userId, sessionId: input.reviewer.sessionId, slackUser: input.reviewer.slackUser,
    });
    if (!sessionLive) return refused(sessionEndedError());
    if (!slackLinkLive) return refused(slackUnlinkedError());
    const checked = input.assertion ? await checkApprovalAssertion(tx, { tenantId: input.tenantId, assertion: input.assertion }) : null;
    const action = await lockAction(tx, { tenantId: input.tenantId, actionId: input.actionId });
    if (!action) return refused(refusalError("not_found", { status: "missing", revision: null }));
    if (input.channel === "slack") {
      const reason = await slackVoteRefusal(tx, { tenantId: input.tenantId, action });
      if (reason) {
        const details = { status: action.status, revision: action.currentRevision };
        return refused(new AppError("open_only", `This action cannot be decided from Slack. ${reason}`, 403, details), { actionId: action.id, tool: action.tool });
      }
    }
    if (checked && !checked.ok) {
      const details = { status: action.status, revision: action.currentRevision };
      return refused(new AppError("signature_invalid", checked.message, 403, details), { actionId: action.id, tool: action.tool });
    }
    // An approval rests on the state the request snapshot recorded: read it again now, its rows
    // locked until this vote commits, and let the vote statement compare (a rejection needs no read).
    const live = input.verdict === "approve" && action.status === "pending" ? await lockedLiveSnapshotHash(tx, input.tenantId, action) : null;
    let grant: ReturnType<typeof voteGrantOf> = null;
    try {
      grant = voteGrantOf(input, actor, action);
    } catch (error) {
      if (error instanceof AppError) return refused(error, { actionId: action.id, tool: action.tool });
      throw error;
    }
    const vote = await castVote(tx, {
      tenantId: input.tenantId, actionId: action.id, reviewerId: input.reviewer.userId, verdict: input.verdict, note,
      payloadHash: input.payloadHash, decisionId: randomUUID(),
      signed: checked?.signed ?? null, absentSnapshotHash: snapshotHash(null), liveSnapshotHash: live, grant,
      viewedMs: viewedMsOf(input.viewedMs),
      // The vote statement adds the revision, the tally, the clamped time on screen and the status it decides.
      recorded: auditTemplateOf({
        ...base, actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel,
        type: "decision.recorded", outcome: "ok",
        data: {
          payloadHash: input.payloadHash, note, ...(checked?.ok ? { signature: checked.audit } : {}), ...(input.channel ? { channel: input.channel } : {}),
          ...(grant ? { grant: { termsHash: grant.hash, ...grant.terms } } : {}),
        },
      }, ["revision", "approvals", "quorum", "viewedMs"], { columns: ["status"] }),
    });
    if (vote.refusal === null) {
      return { ok: true, outcome: { status: vote.status, approvals: vote.approvals, quorum: vote.quorum, revision: vote.revision, grant: vote.grant } };
    }
    const error = refusalError(vote.refusal, vote);
    if (vote.refusal === "expired") {
      await expireOnDecision(tx, input.tenantId, actor, action);
      return { ok: false, error };
    }
    return refused(error, { actionId: action.id, tool: action.tool });
  }));
  void requestSeal(db, input.tenantId);
  if (!result.ok) throw markAudited(result.error);
  return result.outcome;
}

type RefusalSubject = { actionId?: string | null; tool?: string | null };
/** What every audit event of one vote shares. */
type VoteAuditBase = { tenantId: string; actor: AuditActor; subject: { type: string; id: string }; verdict: Verdict; reviewerId: string };

/** Records a refused vote in the vote's transaction and hands back the error to throw once it commits. */
async function auditRefusal(
  tx: SqlClient,
  input: DecideInput,
  base: VoteAuditBase,
  error: Error,
  extra: RefusalSubject,
): Promise<{ ok: false; error: Error }> {
  const code = error instanceof AppError ? error.code : error instanceof InvalidPayloadError ? `invalid_payload.${error.code}` : "invalid";
  // The note is left out: a refusal is recorded even when the note itself is what was refused.
  await insertAuditEvent(tx, auditBodyOf({
    ...base, ...extra, type: "decision.refused", outcome: "refused", status: code,
    data: { code, message: error.message, payloadHash: input.payloadHash, actionId: input.actionId, ...(input.channel ? { channel: input.channel } : {}) },
  }));
  return { ok: false, error };
}

/** The hash of the state an approval rests on, read now with its rows locked until the vote commits. */
async function lockedLiveSnapshotHash(tx: SqlClient, tenantId: string, action: LockedAction): Promise<string> {
  const tool = await findTenantTool(tx, tenantId, action.tool);
  return snapshotHash(await readLiveState(tx, { tenantId, tool, args: toolArgsOf(action), lock: true }));
}

/** Marks a pending action whose approval window closed as expired, found by a vote on it. */
async function expireOnDecision(tx: SqlClient, tenantId: string, actor: AuditActor, action: LockedAction): Promise<void> {
  await settleAction(tx, {
    tenantId, actionId: action.id, from: ["pending"], to: "expired", reason: "The approval window closed before a decision.",
    event: auditBodyOf({
      tenantId, actor, type: "action.expired", outcome: "ok", subject: { type: "action", id: action.id },
      actionId: action.id, tool: action.tool, riskLevel: action.riskLevel, requester: action.requesterLabel, status: "expired",
      data: { revision: action.currentRevision, detectedBy: "decision" },
    }),
  });
}

/** The client's figure, made a whole number of milliseconds within 0 … a day (absent → null). */
function viewedMsOf(ms: number | null | undefined): number | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return null;
  return Math.min(MAX_VIEWED_MS, Math.max(0, Math.round(ms)));
}
