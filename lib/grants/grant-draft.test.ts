import { describe, expect, it } from "vitest";
import { draftGrantTerms } from "@/lib/grants/grant-draft";
import { constraintHolds } from "@/lib/grants/grant-terms";
import { grantSentence, grantTermsFrom, grantTermsProblem } from "@/components/actions/grant-terms-fields";

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
    expect(draft).toMatchObject({
      constraint: "args.amount_minor <= 3000", description: "amount at most 30.00", totalArgument: "amount_minor", maxTotal: 30_000, ttlSeconds: 1800, maxTtlSeconds: 1800,
    });
    expect(constraintHolds(draft!.constraint, { ...args, amount_minor: 3001 })).toBe(false);
  });

  it("binds other calls to their identifiers, and offers nothing for a member's own call or a rule that allows no grant", () => {
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: true, grantMaxSeconds: undefined })).toMatchObject({
      constraint: 'args.invoice_number == "INV-1045"', description: "invoice_number is INV-1045",
    });
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: false, grantMaxSeconds: undefined })).toBeNull();
    expect(draftGrantTerms({ args: { invoice_number: "INV-1045" }, agentCall: true, grantMaxSeconds: 0 })).toBeNull();
  });

  it("takes a money total in major units, as the reviewer reads and types it, and says so in the confirmation", () => {
    const form = (total: string) => {
      const data = new FormData();
      for (const [key, value] of Object.entries({ grant: "on", grantDescription: "amount at most 30.00", grantConstraint: "args.amount_minor <= 3000", grantMaxCalls: "", grantMinutes: "30", grantTotalArgument: "amount_minor", grantMaxTotal: total })) data.set(key, value);
      return data;
    };
    expect(grantTermsProblem(form("1,250.50"))).toBeNull();
    const terms = grantTermsFrom(form("1,250.50"))!;
    expect(terms).toMatchObject({ totalArgument: "amount_minor", maxTotal: 125_050, maxCalls: null, ttlSeconds: 1800 });
    expect(grantSentence(terms)).toBe("You also approve calls like it for 30 minutes: amount at most 30.00 (args.amount_minor <= 3000), a total amount of at most 1,250.50.");
    expect(grantTermsProblem(form("12.345"))).toBe("The grant's total: At most two decimals (cents).");
    expect(grantTermsProblem(form("twelve"))).toMatch(/^The grant's total: Enter digits/);
    // A count is not money: typed as it is.
    const count = form("40");
    count.set("grantTotalArgument", "rows");
    expect(grantTermsFrom(count)).toMatchObject({ totalArgument: "rows", maxTotal: 40 });
  });
});
