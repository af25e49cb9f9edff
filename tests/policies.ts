import { DEFAULT_POLICY } from "@/lib/policy/default-policy";

/** A condition of about 1,990 characters (the most a rule takes): `term(k)` joined by && for k = 0, 1, … */
function longCondition(term: (k: number) => string): string {
  const terms: string[] = [];
  for (let k = 0; terms.join(" && ").length < 1_950; k++) terms.push(term(k));
  return terms.join(" && ");
}

/**
 * The default policy with 90 refund rules and 40 invoice rules (a tool takes 100), every one with
 * a condition as long as a rule allows: ~260 KB of JSON, about what the editor takes (256 KB).
 * `refundTerm` writes the refund rules' terms (a misspelt argument there makes every one invalid).
 */
export function largePolicy(refundTerm: (rule: number, k: number) => string = (i, k) => `args.amount_minor != ${i * 1_000 + k}`) {
  const rule = (tool: string, i: number, when: string) => ({ id: `${tool}-band-${i}`, when, effect: "require_approval" as const, tier: "elevated" as const, reason: `Band ${i} needs a reviewer.` });
  const refunds = Array.from({ length: 90 }, (_, i) => rule("refund", i, longCondition((k) => refundTerm(i, k))));
  const invoices = Array.from({ length: 40 }, (_, i) => rule("invoice", i, longCondition((k) => `args.invoice_number != "INV-${i}-${k}"`)));
  const { refund_invoice: refund, get_invoice: invoice } = DEFAULT_POLICY.tools;
  return {
    ...DEFAULT_POLICY,
    tools: { ...DEFAULT_POLICY.tools, refund_invoice: { ...refund, rules: [...refunds, ...refund.rules] }, get_invoice: { ...invoice, rules: [...invoices, ...invoice.rules] } },
  };
}
