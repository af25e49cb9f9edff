import type { JsonObject } from "@/lib/canonical/json-value";
import type { Requester } from "@/lib/approvals/actors";
import type { TenantGrants } from "@/lib/approvals/active-policy";
import type { Judgement } from "@/lib/approvals/judge-payload";
import type { ProposalGrant } from "@/lib/db/statements/actions/write-proposals";
import type { PolicyDecision } from "@/lib/policy/evaluate-policy";
import { constraintHolds, grantAmountOf } from "@/lib/grants/grant-terms";
import { fitsWithin, INLINE_CHARS } from "@/lib/compute/fits-within";

/**
 * The standing grant in force that looks like it covers a call the policy sends to review: same
 * tool, scope (key, else task), policy version and rule, unexpired by this clock, its constraint
 * holding for the arguments and its total countable. Only a candidate: the proposal's statement
 * takes it or refuses (write-proposals.ts). Tenants without grants loop over nothing; arguments
 * larger than INLINE_CHARS are not looked at (the call waits for review).
 */
export function standingGrantFor(
  grants: TenantGrants,
  call: { tool: string; args: JsonObject; policyVersion: number; requester: Requester; taskId: string | null; decision: PolicyDecision },
): ProposalGrant | null {
  // Large arguments are not judged in the request thread (the 50 ms rule): they go to review.
  if (grants.active.length === 0 || !fitsWithin(call.args, INLINE_CHARS)) return null;
  const apiKeyId = call.requester.type === "api_key" ? call.requester.apiKeyId : null;
  for (const g of grants.active) {
    if (g.tool !== call.tool || g.policyVersion !== call.policyVersion || g.ruleId !== call.decision.ruleId) continue;
    if (g.apiKeyId !== null ? g.apiKeyId !== apiKeyId : g.taskId !== call.taskId) continue;
    if (Date.parse(g.expiresAt) <= Date.now()) continue;
    const amount = grantAmountOf(g.totalArgument, call.args);
    if (amount === null || !constraintHolds(g.constraint, call.args)) continue;
    return { id: g.id, amount, ruleId: call.decision.ruleId, signatureRequired: call.decision.signature === "required" };
  }
  return null;
}

/** A grant its statement found spent (or revoked, or expired): not tried again by this process until the grants are read again. */
export function forgetSpentGrant(grants: TenantGrants, grantId: string): void {
  const at = grants.active.findIndex((g) => g.id === grantId);
  if (at >= 0) grants.active.splice(at, 1);
}

/** The judgement of a call allowed by `grant`: the policy's, turned from review into allow, and saying why. */
export function grantedJudgement(judged: Judgement, grant: ProposalGrant): Judgement {
  const { decision } = judged;
  return {
    ...judged,
    decision: {
      ...decision, effect: "allow", grant: { id: grant.id },
      reason: `Allowed without review by standing grant ${grant.id}, approved by reviewers for calls like this one. The policy alone would have asked: ${decision.reason}`,
    },
  };
}
