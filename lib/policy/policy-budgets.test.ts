import { describe, expect, it } from "vitest";
import { evaluatePolicy, policyBudgetTerms } from "./evaluate-policy";
import { validatePolicy } from "./validate-policy";
import { budgetTermKey } from "./policy-budgets";
import type { Policy } from "./policy-document";
import { budgetStanding, describeBudgetLine } from "./budget-standing";
import { builtInToolCatalogue } from "./policy-tool-catalogue";

const SUM = 'budget.window("24h").sum("refund_invoice", "amount_minor", "key")';
const budgeted = (when: string): Policy => ({
  defaults: { ttlSeconds: 3600, quorum: 1, eligibleRoles: ["reviewer"] },
  tools: {
    refund_invoice: {
      rules: [
        { id: "over-budget", when, effect: "require_approval", reason: "Over the daily refund budget" },
        { id: "within-budget", effect: "allow", reason: "Within the daily refund budget" },
      ],
    },
  },
});
const refusalOf = (when: string) => {
  const r = validatePolicy(budgeted(when));
  if (r.ok) throw new Error(`expected ${when} to be refused`);
  return r.errors.map((e) => `${e.path}: ${e.message}`).join("\n");
};
const key = budgetTermKey({ window: "24h", windowSeconds: 86_400, measure: "sum", tool: "refund_invoice", argument: "amount_minor", by: "key" });
const decide = (policy: Policy, budgets: Record<string, string> | undefined, amount = 10_000) =>
  evaluatePolicy(policy, { tool: "refund_invoice", args: { invoice_number: "INV-1", amount_minor: amount }, context: { requesterRoles: [] }, budgets });

describe("budgets in a rule's condition", () => {
  it("type-checks the budget shape and lists the totals each tool's rules read, with the limit they are compared with", () => {
    const policy = budgeted(`${SUM} + args.amount_minor > 100000 || budget.window("1h").count("refund_invoice", "task") >= 5`);
    expect(validatePolicy(policy).ok).toBe(true);
    expect(policyBudgetTerms(policy, "refund_invoice")).toEqual([
      { window: "24h", windowSeconds: 86_400, measure: "sum", tool: "refund_invoice", argument: "amount_minor", by: "key", limit: 100_000, ruleId: "over-budget" },
      { window: "1h", windowSeconds: 3_600, measure: "count", tool: "refund_invoice", argument: null, by: "task", limit: 5, ruleId: "over-budget" },
    ]);
    expect(policyBudgetTerms(policy, "get_invoice")).toEqual([]);
  });

  it("refuses malformed budget calls with a message that shows the shape", () => {
    expect(refusalOf('budget.window("24h").sum("refund_invoice", "amount_minor") > 1')).toMatch(/does not type-check: .*no matching overload/);
    expect(refusalOf('budget.window("24h").sum("refund_invoice", "amount_minor", "team") > 1')).toMatch(/scope "team" must be one of key, task, requester, tenant/);
    expect(refusalOf('budget.window("2 days").count("refund_invoice", "key") > 1')).toMatch(/window "2 days" must be a duration like 1h, 24h or 7d/);
    expect(refusalOf('budget.window("32d").count("refund_invoice", "key") > 1')).toMatch(/at most 31d/);
    expect(refusalOf('budget.window("24h").count(tool, "key") > 1')).toMatch(/must be a string literal/);
    expect(refusalOf('budget.window("24h").count("refund_invoic", "key") > 1')).toMatch(/tool "refund_invoic", which the policy does not list/);
    expect(refusalOf('budget.window("24h").sum("refund_invoice", "amount-minor", "key") > 1')).toMatch(/not an argument name/);
    expect(refusalOf("[budget].size() > 0")).toMatch(/budget can only be read as budget\.window/);
    expect(refusalOf('budget.window("24h").count("refund_invoice", args.scope) > 1')).toMatch(/must be a string literal/);
    expect(refusalOf('budget.window("24h") == budget.window("24h")')).toMatch(/does not type-check/);
    expect(refusalOf(`${SUM} > "a lot"`)).toMatch(/does not type-check/);
  });

  it("on save, refuses a budget that sums what is not an integer argument of the counted tool", () => {
    const tools = builtInToolCatalogue();
    expect(validatePolicy(budgeted(`${SUM} > 1`), { tools }).ok).toBe(true);
    const r = validatePolicy(budgeted('budget.window("24h").sum("refund_invoice", "amount", "key") > 1'), { tools });
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([expect.stringMatching(/sums refund_invoice\.amount, which is not an integer argument of refund_invoice — did you mean amount_minor\?/)]);
    const text = validatePolicy(budgeted('budget.window("24h").sum("refund_invoice", "reason", "key") > 1'), { tools });
    expect(text.ok).toBe(false);
  });

  it("decides on the totals given, and fails closed when a total it reads was not given", () => {
    const policy = budgeted(`${SUM} + args.amount_minor > 100000`);
    expect(decide(policy, { [key]: "90000" }).effect).toBe("allow");
    expect(decide(policy, { [key]: "90001" })).toMatchObject({ effect: "require_approval", ruleId: "over-budget" });
    // Sums beyond 2^53 stay exact.
    expect(decide(policy, { [key]: "9007199254740993" }).effect).toBe("require_approval");
    const unread = decide(policy, undefined);
    expect(unread).toMatchObject({ effect: "deny", ruleId: "over-budget" });
    expect(unread.reason).toMatch(/was not read/);
  });
});

describe("a budget as reviewers and agents read it", () => {
  const line = { window: "24h", measure: "sum" as const, tool: "refund_invoice", argument: "amount_minor", by: "key" as const, limit: 100_000, usedBefore: 75_000, usedAfter: 85_000 };
  it("says what is used of the limit, by whom, this call included", () => {
    expect(describeBudgetLine(line, "refund_invoice")).toBe("last 24h: 850.00 of 1,000.00 used by this key");
    expect(describeBudgetLine({ ...line, limit: null }, "send_email")).toBe("last 24h: 850.00 (refund_invoice.amount_minor) used by this key");
    expect(describeBudgetLine({ ...line, measure: "count", argument: null, by: "task", limit: 5, usedAfter: 3 }, "send_email")).toBe("last 24h: 3 of 5 refund_invoice calls used by this task");
  });
  it("tells agents what is left", () => {
    expect(budgetStanding(line)).toMatchObject({ used: 85_000, limit: 100_000, remaining: 15_000 });
    expect(budgetStanding({ ...line, usedAfter: 120_000 }).remaining).toBe(0);
    expect(budgetStanding({ ...line, limit: null }).remaining).toBeNull();
  });
});
