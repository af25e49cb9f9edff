import { describe, expect, it } from "vitest";
import { draftGrantTerms } from "@/lib/grants/grant-draft";
import { constraintHolds } from "@/lib/grants/grant-terms";

describe("the grant a reviewer is offered", () => {
  it("binds an email to its recipients' domains, and covers the action itself but not another domain", () => {
    const args = { to: "Ops@Partner.Example", subject: "Report", body: "Attached." };
    const draft = draftGrantTerms({ args, agentCall: true, grantMaxSeconds: undefined });
    expect(draft).toEqual({
      constraint: 'emailDomains(args).all(d, d in ["partner.example"])', description: "every recipient at partner.example",
      maxCalls: 10, totalArgument: null, maxTotal: null, ttlSeconds: 3600, maxTtlSeconds: 86_400,
    });
    expect(constraintHolds(draft!.constraint, { ...args, to: "ap@partner.example" })).toBe(true);
    expect(constraintHolds(draft!.constraint, { ...args, to: "ops@partner.example.evil" })).toBe(false);
  });

  it("binds a refund to at most its amount, with a total of ten of them, and not a cent more", () => {
    const args = { invoice_number: "INV-1043", amount_minor: 3000, reason: "Duplicate charge" };
    const draft = draftGrantTerms({ args, agentCall: true, grantMaxSeconds: 1800 });
    expect(draft).toMatchObject({ constraint: "args.amount_minor <= 3000", totalArgument: "amount_minor", maxTotal: 30_000, ttlSeconds: 1800, maxTtlSeconds: 1800 });
    expect(constraintHolds(draft!.constraint, { ...args, amount_minor: 3001 })).toBe(false);
  });

  it("binds other calls to their identifiers, and offers nothing for a member's own call or a rule that allows no grant", () => {
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: true, grantMaxSeconds: undefined })).toMatchObject({
      constraint: 'args.invoice_number == "INV-1045"', description: "invoice_number is INV-1045",
    });
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: false, grantMaxSeconds: undefined })).toBeNull();
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: true, grantMaxSeconds: 0 })).toBeNull();
  });
});
