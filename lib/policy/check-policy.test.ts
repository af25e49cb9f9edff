import { describe, expect, it } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { checkPolicy } from "@/lib/policy/check-policy";
import { builtInToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import { validatePolicy } from "@/lib/policy/validate-policy";

/** A condition of about 1,990 characters (the most a rule takes): `term(k)` joined by && for k = 0, 1, … */
function longCondition(term: (k: number) => string): string {
  const terms: string[] = [];
  for (let k = 0; terms.join(" && ").length < 1_950; k++) terms.push(term(k));
  return terms.join(" && ");
}

/**
 * The default policy with 90 refund rules and 40 invoice rules (tools take 100 each), every one
 * with a condition as long as a rule allows: ~260 KB of JSON, about what the editor takes (256 KB).
 */
function bigPolicy(refundTerm: (rule: number, k: number) => string) {
  const rule = (tool: string, i: number, when: string) => ({ id: `${tool}-band-${i}`, when, effect: "require_approval" as const, tier: "elevated" as const, reason: `Band ${i} needs a reviewer.` });
  const refunds = Array.from({ length: 90 }, (_, i) => rule("refund", i, longCondition((k) => refundTerm(i, k))));
  const invoices = Array.from({ length: 40 }, (_, i) => rule("invoice", i, longCondition((k) => `args.invoice_number != "INV-${i}-${k}"`)));
  const { refund_invoice: refund, get_invoice: invoice } = DEFAULT_POLICY.tools;
  return {
    ...DEFAULT_POLICY,
    tools: { ...DEFAULT_POLICY.tools, refund_invoice: { ...refund, rules: [...refunds, ...refund.rules] }, get_invoice: { ...invoice, rules: [...invoices, ...invoice.rules] } },
  };
}

describe("checkPolicy: a policy document is compiled on the compute pool", () => {
  it("checks a 250 KB policy off the request thread, with the verdict the validator gives on it", async () => {
    const document = bigPolicy((i, k) => `args.amount_minor != ${i * 1_000 + k}`);
    expect(JSON.stringify(document).length).toBeGreaterThan(250_000);
    const tools = builtInToolCatalogue();
    const { result, turns } = await whileTurning(() => checkPolicy(document, { forSave: true, tools }));
    // The loop kept turning while the thousands of conditions were parsed and type-checked.
    expect(turns).toBeGreaterThan(0);
    expect(result.ok).toBe(true);
    expect(result).toEqual(validatePolicy(document, { forSave: true, tools, codeTools: ["run_python"] }));
  });

  it("names the bad rules of a large policy as the validator does, against the tenant's tools on a save only", async () => {
    // A misspelt argument in every refund rule: a save checks conditions against the tool's schema.
    const document = bigPolicy((i, k) => `args.amount_minr != ${i * 1_000 + k}`);
    const saved = await checkPolicy(document, { forSave: true, tools: builtInToolCatalogue() });
    expect(saved.ok).toBe(false);
    expect(saved).toEqual(validatePolicy(document, { forSave: true, tools: builtInToolCatalogue(), codeTools: ["run_python"] }));
    if (!saved.ok) expect(saved.errors[0].path).toContain("tools.refund_invoice.rules.0");
    // A stored version is read as it was saved.
    expect(await checkPolicy(document, { forSave: false })).toEqual(validatePolicy(document, { forSave: false }));
  });

  it("refuses a document that is not a policy, changing nothing, as the validator does", async () => {
    for (const document of [null, "policy", { tools: {} }, { ...DEFAULT_POLICY, extra: true }]) {
      const checked = await checkPolicy(document, { forSave: false });
      expect(checked.ok).toBe(false);
      expect(checked).toEqual(validatePolicy(document, { forSave: false }));
    }
  });
});
