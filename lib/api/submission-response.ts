import type { ProposalOutcome } from "@/lib/approvals/propose-action";
import type { SubmittedActionRow } from "@/lib/db/statements/actions/read-submitted-action";
import type { SubmitResponse } from "@/lib/api/schemas";
import { budgetStanding } from "@/lib/policy/budget-standing";
import type { GrantLeft } from "@/lib/db/statements/actions/write-proposals";

/** States in which an action the policy allowed outright has run, or may still run. */
const ALLOWED_STATES = new Set(["approved", "executing", "succeeded", "failed", "unknown", "expired"]);

/** The submit's answer to a first proposal, with its HTTP status. */
export function submissionBody(outcome: Exclude<ProposalOutcome, { state: "replayed" }>): { status: 200 | 201; body: SubmitResponse } {
  const budgets = outcome.budgets ? { budgets: outcome.budgets.map(budgetStanding) } : {};
  switch (outcome.state) {
    case "pending":
      return {
        status: 201,
        body: {
          state: "pending", id: outcome.actionId, revision: outcome.revision, payloadHash: outcome.payloadHash,
          expiresAt: outcome.expiresAt.toISOString(), riskLevel: outcome.riskLevel, quorum: outcome.quorum, policyReason: outcome.reason,
          ...budgets, replayed: false, actionState: "pending",
        },
      };
    case "allowed": {
      const { execution, grant } = outcome;
      return {
        status: 200,
        body: {
          state: "allowed", id: outcome.actionId, policyReason: outcome.reason,
          execution: { state: execution.state, executionId: execution.executionId, result: execution.result, isolation: execution.isolation },
          ...budgets, ...(grant ? { grant: grantUseOf(grant) } : {}), replayed: false, actionState: execution.state,
        },
      };
    }
    case "denied":
      return {
        status: 200,
        body: { state: "denied", id: outcome.actionId, reason: outcome.reason, ruleId: outcome.ruleId, riskLevel: outcome.riskLevel, ...budgets, replayed: false, actionState: "denied" },
      };
  }
}

/** A grant's standing after the call it allowed, as agents are told it. */
export function grantUseOf(grant: GrantLeft): NonNullable<Extract<SubmitResponse, { state: "allowed" }>["grant"]> {
  return { id: grant.id, callsLeft: grant.callsLeft, totalLeft: grant.totalLeft, expiresAt: grant.expiresAt.toISOString() };
}

/**
 * A retried submit's answer: the action the key submitted under this Idempotency-Key, in the
 * shape the first answer had (pending, allowed or denied, as the policy classified it), with what
 * is true now — its current revision, hash and expiry, its run if it has ended — and its state now.
 */
export function replayedSubmissionBody(action: SubmittedActionRow): SubmitResponse {
  const actionState = action.state as SubmitResponse["actionState"];
  if (action.state === "denied") {
    return { state: "denied", id: action.id, reason: action.statusReason ?? action.policyReason, ruleId: action.ruleId, riskLevel: action.riskLevel, replayed: true, actionState };
  }
  if (!action.requiresApproval && ALLOWED_STATES.has(action.state)) {
    const run = action.execution;
    return {
      state: "allowed", id: action.id, policyReason: action.policyReason,
      execution: run ? { state: run.state, executionId: run.id, result: run.result ?? {}, isolation: run.isolation } : null,
      replayed: true, actionState,
    };
  }
  if (!action.expiresAt) throw new Error(`Action ${action.id} awaits reviewers but has no expiry.`);
  return {
    state: "pending", id: action.id, revision: action.revision, payloadHash: action.payloadHash, expiresAt: action.expiresAt.toISOString(),
    riskLevel: action.riskLevel, quorum: action.quorum, policyReason: action.policyReason, replayed: true, actionState,
  };
}
