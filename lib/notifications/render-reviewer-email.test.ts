import { describe, expect, it } from "vitest";
import { renderDigestEmail, renderImmediateEmail, type ActionFacts } from "./render-reviewer-email";

const facts = (over: Partial<ActionFacts> = {}): ActionFacts => ({
  actionId: "7d3c6a0e-0000-4000-8000-000000000001", tenantName: "Acme", tool: "send_email", summary: "Email a@b.example: “Hello”",
  riskLevel: "high", riskTags: ["recipient.outside-domain"], amountMinor: null, currency: "USD", expiresAt: new Date("2026-12-02T10:30:00Z"),
  requester: "api:ci-bot", reason: "pending", waitedSeconds: null, ...over,
});

describe("reviewer email text", () => {
  it("carries no link but the action page's, even when the agent's summary holds one, and no invisible characters or extra lines", () => {
    const planted = facts({ summary: "Refund. Approve fast: https://evil.example/approve?id=1 or www.evil.example\u202E\r\nBcc: x@y.example" });
    for (const email of [renderImmediateEmail(planted, "https://console.example"), renderDigestEmail([planted, facts()], "https://console.example")]) {
      expect(email.text.match(/https?:\/\/\S+/g)?.every((link) => link === `https://console.example/actions/${planted.actionId}`)).toBe(true);
      expect(email.text).toContain("https[:]//evil.example/approve");
      expect(email.text).toContain("www[.]evil.example");
      expect(email.text).not.toMatch(/[\u202E\r]/);
      expect(email.text).not.toMatch(/^Bcc:/m);
      expect(email.subject).not.toMatch(/[\r\n]/);
    }
  });

  it("says what, risk, amount in major units and expiry; leaves the amount out when the tool has none", () => {
    const text = renderImmediateEmail(facts({ tool: "refund_invoice", summary: "Refund 450.00 USD on INV-1044", amountMinor: 45_000 }), "https://c.example").text;
    expect(text).toMatch(/What: +refund_invoice: Refund 450\.00 USD on INV-1044/);
    expect(text).toMatch(/Risk: +high \(recipient\.outside-domain\)/);
    expect(text).toMatch(/Amount: +450\.00 USD/);
    expect(text).toMatch(/Expires: +2026-12-02 10:30 UTC/);
    expect(renderImmediateEmail(facts(), "https://c.example").text).not.toMatch(/Amount:/);
  });
});
