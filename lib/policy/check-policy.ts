import { computeBudgetMs, runCompute } from "@/lib/compute/compute-pool";
import { checkPolicyTask } from "@/lib/policy/compute";
import type { PolicyToolCatalogue } from "./policy-tool-catalogue";
import type { PolicyValidationResult } from "./compile-policy";

/**
 * A stored version passed a save's check under the pool's budget; reading it back gets far more:
 * a proposal is never refused `too_complex` because its own policy read slowly on a busy machine.
 */
const STORED_VERSION_BUDGET_FACTOR = 30;

/**
 * validatePolicy on the compute pool (a 256 KB policy held the request thread for hundreds of
 * milliseconds). A save (`tools` given) is checked against the tenant's tools and refused
 * `too_complex` past the CPU budget; a stored version is read as saved, under a larger budget.
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
