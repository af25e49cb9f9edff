import { evaluatePolicy, type PolicyDecision, type PolicyInput } from "./evaluate-policy";
import { toCelValue } from "./policy-cel";
import type { Policy } from "./policy-document";
import { compilePolicy } from "./compile-policy";
import { BudgetTotals } from "./policy-budgets";

/**
 * One rule of the tool, as it fared on the input: held, did not hold, or could not be evaluated
 * (which denies). `decides`: the first rule that held or errored, the one the decision came from.
 */
export type RuleTrace = { ruleId: string; when: string | null; outcome: "matched" | "not_matched" | "error"; decides: boolean; error?: string };
export type PolicyTrace = { decision: PolicyDecision; rules: RuleTrace[] };

/**
 * What the policy decides for one input (evaluatePolicy, as proposals) and how each rule fared:
 * rules after the deciding one are still evaluated, so an admin sees whether they would hold. Pure.
 */
export function tracePolicy(policy: Policy, input: PolicyInput): PolicyTrace {
  const decision = evaluatePolicy(policy, input);
  const compiled = compilePolicy(policy);
  const toolPolicy = Object.hasOwn(policy.tools, input.tool) ? policy.tools[input.tool] : undefined;
  if (!compiled.ok || !toolPolicy) return { decision, rules: [] };
  const ctx: Record<string, unknown> = {
    requesterRoles: input.context.requesterRoles,
    customerVerifiedDomains: (input.context.customerVerifiedDomains ?? []).map((d) => d.toLowerCase()),
    tenantDomains: (input.context.tenantDomains ?? []).map((d) => d.toLowerCase()),
    riskTags: input.context.riskTags ?? [],
    ...(input.context.amountMinor === undefined ? {} : { amountMinor: BigInt(input.context.amountMinor) }),
    ...(input.context.recipientDomain === undefined ? {} : { recipientDomain: input.context.recipientDomain.toLowerCase() }),
    ...(input.context.riskLevel === undefined ? {} : { riskLevel: input.context.riskLevel }),
  };
  const celContext = { args: toCelValue(input.args), tool: input.tool, ctx, budget: new BudgetTotals(input.budgets) };
  let decided = false;
  const rules = toolPolicy.rules.map((rule): RuleTrace => {
    let outcome: RuleTrace["outcome"] = "matched";
    let error: string | undefined;
    const condition = rule.when === undefined ? undefined : compiled.compiled.conditions.get(rule.id);
    if (condition) {
      try {
        const result: unknown = condition(celContext);
        if (typeof result !== "boolean") [outcome, error] = ["error", `yielded ${typeof result}, not a boolean`];
        else outcome = result ? "matched" : "not_matched";
      } catch (e) {
        [outcome, error] = ["error", (e instanceof Error ? e.message : String(e)).split("\n")[0]];
      }
    }
    const decides = !decided && outcome !== "not_matched";
    if (decides) decided = true;
    const trace: RuleTrace = { ruleId: rule.id, when: rule.when ?? null, outcome, decides };
    return error === undefined ? trace : { ...trace, error };
  });
  return { decision, rules };
}
