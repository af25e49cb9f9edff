import { computeBudgetMs, runCompute } from "@/lib/compute/compute-pool";
import { checkPolicyTask } from "@/lib/policy/compute";
import type { PolicyToolCatalogue } from "./policy-tool-catalogue";
import type { PolicyValidationResult } from "./compile-policy";

/**
 * A stored version passed a save's check under the pool's budget; reading it back is given far
 * more. It is the tenant's own policy, not an agent's payload: a proposal is never refused as
 * `too_complex` because its policy took a few milliseconds more to read on a busy machine (or
 * under a budget lowered since the save).
 */
const STORED_VERSION_BUDGET_FACTOR = 30;

/**
 * validatePolicy on the compute pool: parsing and type-checking every rule's condition grows with
 * the document (a 256 KB policy held the request thread for hundreds of milliseconds), so it never
 * runs on a request thread. For a save (`tools` given), the rules are checked against the tenant's
 * tools, code tools included, and a document past the pool's CPU budget is refused as
 * `too_complex`; a stored version (`forSave: false`) is read as it was saved, under a budget
 * STORED_VERSION_BUDGET_FACTOR times larger.
 */
export function checkPolicy(document: unknown, options: { forSave: true; tools: PolicyToolCatalogue } | { forSave: false }): Promise<PolicyValidationResult> {
  return runCompute(checkPolicyTask,
    { document, tools: options.forSave ? options.tools : null },
    { what: "policy", budgetMs: options.forSave ? computeBudgetMs() : storedVersionBudgetMs() },
  );
}

export function storedVersionBudgetMs(): number {
  return Math.max(computeBudgetMs(), 2_000) * STORED_VERSION_BUDGET_FACTOR;
}
