import { describe, expect, it } from "vitest";
import type { JsonObject } from "@/lib/canonical/json-value";
import { DEFAULT_POLICY } from "./default-policy";
import { evaluatePolicy, type PolicyContext } from "./evaluate-policy";
import type { Policy } from "./policy-document";

const ctx: PolicyContext = {
  requesterRoles: ["requester"],
  customerVerifiedDomains: ["acme.example"],
  tenantDomains: ["demo.test"],
};
/** A policy of these tools whose approvals take one reviewer within an hour. */
const oneReviewerPolicy = (tools: Policy["tools"]): Policy => ({ defaults: { ttlSeconds: 3600, quorum: 1, eligibleRoles: ["reviewer"] }, tools });
const decide = (tool: string, args: JsonObject, context: PolicyContext = ctx, policy: Policy = DEFAULT_POLICY) =>
  evaluatePolicy(policy, { tool, args, context });

describe("DEFAULT_POLICY", () => {
  it("allows the read tools at once", () => {
    for (const tool of ["lookup_customer", "get_invoice"]) {
      const d = decide(tool, { customerId: "c_1" });
      expect(d.effect).toBe("allow");
      expect(d.quorum).toBe(0);
      expect(d.eligibleRoles).toEqual([]);
      expect(d.reason).toMatch(/changes nothing/);
    }
  });

  it("send_email to the customer's verified domain: one reviewer", () => {
    const d = decide("send_email", { to: "ap@acme.example", subject: "Reminder", body: "Invoice INV-1042 is due." });
    expect(d).toMatchObject({ effect: "require_approval", ruleId: "send-email-verified", quorum: 1, eligibleRoles: ["reviewer"], tier: "standard", ttlSeconds: 86400 });
  });

  it("send_email to the tenant's own domain is not 'outside'", () => {
    expect(decide("send_email", { to: "Finance <finance@DEMO.test>", body: "x" }).ruleId).toBe("send-email-verified");
  });

  it("send_email outside the verified domains: elevated, shorter ttl, reviewers only", () => {
    const d = decide("send_email", { to: "attacker@evil.example", subject: "list", body: "…" });
    expect(d).toMatchObject({
      effect: "require_approval",
      ruleId: "send-email-outside-domain",
      tier: "elevated",
      quorum: 1,
      eligibleRoles: ["reviewer"],
      ttlSeconds: 3600,
    });
    expect(d.reason).toMatch(/outside the customer's verified domains/);
    // One bad address among good ones is enough, including cc/bcc.
    expect(decide("send_email", { to: ["ap@acme.example"], cc: "x@evil.example", body: "" }).ruleId).toBe("send-email-outside-domain");
    // A look-alike subdomain is not the verified domain.
    expect(decide("send_email", { to: "ap@acme.example.evil.example", body: "" }).ruleId).toBe("send-email-outside-domain");
  });

  it("send_email with unknown verified domains treats every recipient as outside (fails toward review)", () => {
    expect(decide("send_email", { to: "ap@acme.example" }, { requesterRoles: [] }).ruleId).toBe("send-email-outside-domain");
  });

  it.each(["x@[127.0.0.1]", "x@[IPv6:::1]", "x@2130706433", "x@0x7f000001", "x@10.0.0.1"])(
    "send_email to an IP-literal address %s is denied",
    (to) => {
      const d = decide("send_email", { to, body: "" });
      expect(d).toMatchObject({ effect: "deny", ruleId: "send-email-ip-literal", quorum: 0 });
    },
  );

  it("send_email whose recipient cannot be identified needs an elevated review", () => {
    expect(decide("send_email", { subject: "x", body: "y" }).ruleId).toBe("send-email-no-recipient");
  });

  it("cancel_invoice needs one reviewer (irreversible)", () => {
    expect(decide("cancel_invoice", { invoiceId: "INV-1042" })).toMatchObject({
      effect: "require_approval",
      ruleId: "cancel-invoice",
      quorum: 1,
      tier: "elevated",
    });
  });

  it.each<[number, string, string, number]>([
    [1, "require_approval", "refund-small", 1],
    [100_000, "require_approval", "refund-small", 1],
    [100_001, "require_approval", "refund-large", 2],
    [2_500_000, "require_approval", "refund-large", 2], // INV-1042 in full
    [5_000_000, "require_approval", "refund-large", 2],
    [5_000_001, "deny", "refund-over-limit", 0],
  ])("refund_invoice of %d minor units → %s (%s, quorum %d)", (amount, effect, ruleId, quorum) => {
    const d = decide("refund_invoice", { invoiceId: "INV-1042", amount_minor: amount });
    expect(d).toMatchObject({ effect, ruleId, quorum });
    if (quorum === 2) expect(d.eligibleRoles).toEqual(["reviewer"]);
  });

  it("run_python needs approval", () => {
    expect(decide("run_python", { code: "print(1)" })).toMatchObject({ effect: "require_approval", ruleId: "run-python" });
  });

  it("explains each decision with the rule and the condition that matched", () => {
    const d = decide("refund_invoice", { invoiceId: "INV-1", amount_minor: 150_000 });
    expect(d.reason).toContain("two different reviewers");
    expect(d.reason).toContain('rule "refund-large"');
    expect(d.reason).toContain("args.amount_minor > 100000");
  });
});

describe("DEFAULT_POLICY and risk", () => {
  it("a critical-risk email needs two reviewers; the same email at high risk needs one", () => {
    const args = { to: "attacker@evil.example", subject: "Customer list", body: "…" };
    expect(decide("send_email", args, { ...ctx, riskLevel: "critical" })).toMatchObject({ effect: "require_approval", ruleId: "send-email-critical-risk", quorum: 2, tier: "critical" });
    expect(decide("send_email", args, { ...ctx, riskLevel: "high" })).toMatchObject({ effect: "require_approval", ruleId: "send-email-outside-domain", quorum: 1 });
  });
});

describe("fallbacks", () => {
  const policy: Policy = {
    version: 7,
    defaults: { ttlSeconds: 7200, quorum: 2, eligibleRoles: ["reviewer", "admin"] },
    tools: {
      transfer: {
        rules: [
          { id: "tiny", when: "args.amount_minor < 100", effect: "allow", reason: "Tiny transfers run at once." },
          { id: "big", when: "args.amount_minor >= 1000000", effect: "require_approval", quorum: 3, reason: "Big." },
          { id: "mid", when: "args.amount_minor >= 1000", effect: "require_approval", eligibleRoles: ["admin"], ttlSeconds: 600, tier: "elevated", reason: "Mid." },
        ],
      },
      empty: { rules: [] },
    },
  };

  it("a tool not in the policy is denied", () => {
    const d = decide("delete_everything", {}, ctx, policy);
    expect(d).toMatchObject({ effect: "deny", ruleId: null, quorum: 0 });
    expect(d.reason).toMatch(/No policy covers the tool "delete_everything"/);
    // Inherited object keys are not tools.
    expect(decide("constructor", {}, ctx, policy).effect).toBe("deny");
    expect(decide("toString", {}, ctx, policy).effect).toBe("deny");
  });

  it("a listed tool with no rules, or no matching rule, needs approval with the defaults", () => {
    for (const d of [decide("empty", {}, ctx, policy), decide("transfer", { amount_minor: 500 }, ctx, policy)]) {
      // A stored policy may still name admin; only roles that may decide are kept.
      expect(d).toMatchObject({ effect: "require_approval", ruleId: null, quorum: 2, eligibleRoles: ["reviewer"], ttlSeconds: 7200, tier: "standard" });
    }
  });

  it("first matching rule wins; unset quorum/roles/ttl come from the defaults", () => {
    expect(decide("transfer", { amount_minor: 5 }, ctx, policy).ruleId).toBe("tiny");
    // 2,000,000 matches both "big" and "mid": the earlier one decides.
    const big = decide("transfer", { amount_minor: 2_000_000 }, ctx, policy);
    expect(big).toMatchObject({ ruleId: "big", quorum: 3, eligibleRoles: ["reviewer"], ttlSeconds: 7200, tier: "standard" });
  });

  it("a stored rule naming only roles that may not decide is denied, saying why, instead of queueing what nobody can approve", () => {
    const mid = decide("transfer", { amount_minor: 5000 }, ctx, policy);
    expect(mid).toMatchObject({ effect: "deny", ruleId: "mid", quorum: 0, eligibleRoles: [] });
    expect(mid.reason).toMatch(/names only admin as approvers.*only reviewer may/);
  });

  it("reordering the same rules changes the outcome", () => {
    const transfer = policy.tools.transfer;
    if (transfer === undefined) throw new Error("fixture");
    const [tiny, big, mid] = transfer.rules;
    const swapped: Policy = { ...policy, tools: { transfer: { rules: [tiny!, mid!, big!] } } };
    expect(decide("transfer", { amount_minor: 2_000_000 }, ctx, swapped).ruleId).toBe("mid");
  });
});

describe("integers in conditions", () => {
  const policy = oneReviewerPolicy({
    pay: {
      rules: [
        { id: "exact", when: "args.amount_minor == 100000", effect: "deny", reason: "exactly" },
        { id: "div", when: "args.amount_minor / 100 > 1000", effect: "deny", reason: "integer division" },
        { id: "double", when: "args.amount_minor > 99.5", effect: "allow", reason: "mixed int/double" },
        { id: "ctx", when: "has(ctx.amountMinor) && ctx.amountMinor >= 1", effect: "require_approval", reason: "ctx amount" },
      ],
    },
  });
  it("compares integer minor units exactly, also against doubles and ctx ints", () => {
    expect(decide("pay", { amount_minor: 100000 }, ctx, policy).ruleId).toBe("exact");
    // Integer division truncates: 100099 / 100 == 1000, so "div" does not match (a double would give 1000.99).
    expect(decide("pay", { amount_minor: 100099 }, ctx, policy).ruleId).toBe("double");
    expect(decide("pay", { amount_minor: 100100 }, ctx, policy).ruleId).toBe("div");
    expect(decide("pay", { amount_minor: 9007199254740991 }, ctx, policy).ruleId).toBe("div");
    // A fractional amount is a double; CEL has no double / int overload, so "div" errors and fails closed.
    const frac = decide("pay", { amount_minor: 99.6 }, ctx, policy);
    expect(frac).toMatchObject({ effect: "deny", ruleId: "div" });
    expect(frac.reason).toMatch(/could not be evaluated/);
    expect(decide("pay", { amount_minor: 1 }, { ...ctx, amountMinor: 5 }, policy).ruleId).toBe("ctx");
    expect(decide("pay", { amount_minor: 1 }, ctx, policy).ruleId).toBeNull();
  });
});

describe("fail-safe", () => {
  const policy = oneReviewerPolicy({
    pay: {
      rules: [
        { id: "allow-small", when: "args.amount_minor < 100", effect: "allow", reason: "small" },
        { id: "fallback", effect: "require_approval", reason: "rest" },
      ],
    },
    mail: {
      rules: [{ id: "risky", when: "ctx.riskLevel == 'critical'", effect: "deny", reason: "critical risk" }],
    },
    dyn: { rules: [{ id: "dyn-value", when: "args.flag", effect: "allow", reason: "flag" }] },
  });

  it("a runtime error in a condition denies, naming the rule and the error", () => {
    // Missing key: neither the allow (would be unsafe to match) nor skipping (could skip a deny).
    const d = decide("pay", { other: 1 }, ctx, policy);
    expect(d).toMatchObject({ effect: "deny", ruleId: "allow-small", quorum: 0, tier: "critical" });
    expect(d.reason).toMatch(/could not be evaluated.*amount_minor/);
    // Wrong type at run time.
    expect(decide("pay", { amount_minor: "50" }, ctx, policy).effect).toBe("deny");
    // A missing ctx field in a deny rule denies too.
    expect(decide("mail", {}, ctx, policy)).toMatchObject({ effect: "deny", ruleId: "risky" });
    expect(decide("mail", {}, { ...ctx, riskLevel: "low" }, policy)).toMatchObject({ effect: "require_approval", ruleId: null });
  });

  it("a condition that yields a non-boolean denies", () => {
    expect(decide("dyn", { flag: "yes" }, ctx, policy)).toMatchObject({ effect: "deny", ruleId: "dyn-value" });
    expect(decide("dyn", { flag: true }, ctx, policy)).toMatchObject({ effect: "allow", ruleId: "dyn-value" });
  });

  it("an invalid policy denies everything instead of throwing", () => {
    const broken = { defaults: { ttlSeconds: 1, quorum: 0, eligibleRoles: [] }, tools: {} } as unknown as Policy;
    const d = decide("lookup_customer", {}, ctx, broken);
    expect(d.effect).toBe("deny");
    expect(d.reason).toMatch(/policy is invalid/);
    const badCel = { ...DEFAULT_POLICY, tools: { x: { rules: [{ id: "a", when: "nope(", effect: "allow", reason: "r" }] } } } as Policy;
    expect(decide("x", {}, ctx, badCel).effect).toBe("deny");
  });

  it("a malformed context denies instead of throwing", () => {
    const d = decide("lookup_customer", {}, { requesterRoles: "admin" } as unknown as PolicyContext);
    expect(d.effect).toBe("deny");
    expect(decide("lookup_customer", {}, { ...ctx, extra: 1 } as unknown as PolicyContext).effect).toBe("deny");
  });
});

describe("signed approvals", () => {
  const policy = (extra: Partial<Policy["defaults"]>, rule: Record<string, unknown> = {}): Policy => ({
    ...DEFAULT_POLICY, defaults: { ...DEFAULT_POLICY.defaults, ...extra },
    tools: { pay: { rules: [{ id: "pay-review", effect: "require_approval", reason: "Payments are reviewed.", ...rule }] } },
  });
  const decide = (p: Policy, riskLevel: string) => evaluatePolicy(p, { tool: "pay", args: {}, context: { ...ctx, riskLevel } });

  it("a rule's signature: required asks for a signed approval at any risk", () => {
    expect(decide(policy({}, { signature: "required" }), "low")).toMatchObject({ effect: "require_approval", signature: "required" });
    expect(decide(policy({}), "critical")).not.toHaveProperty("signature");
  });

  it("signatureAtRisk asks for one at that risk level and above, and never for what is allowed or denied", () => {
    const p = policy({ signatureAtRisk: "high" });
    expect(decide(p, "medium")).not.toHaveProperty("signature");
    expect(decide(p, "high")).toMatchObject({ signature: "required" });
    expect(decide(p, "critical")).toMatchObject({ signature: "required" });
    const allowed: Policy = { ...p, tools: { pay: { rules: [{ id: "pay-ok", effect: "allow", reason: "fine" }] } } };
    expect(decide(allowed, "critical")).not.toHaveProperty("signature");
  });
});
