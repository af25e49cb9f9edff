import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "./default-policy";
import { evaluatePolicy } from "./evaluate-policy";
import { validatePolicy } from "./validate-policy";

const base = { defaults: { ttlSeconds: 3600, quorum: 1, eligibleRoles: ["reviewer"] } };
const withRules = (rules: unknown[]) => ({ ...base, tools: { pay: { rules } } });
const errorsOf = (doc: unknown) => {
  const r = validatePolicy(doc);
  if (r.ok) throw new Error("expected the policy to be refused");
  return r.errors;
};

describe("validatePolicy", () => {
  it("accepts the default policy and returns it as data", () => {
    const r = validatePolicy(DEFAULT_POLICY);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.policy).toEqual(DEFAULT_POLICY);
    // It survives a JSON round trip (it is stored as JSON).
    expect(validatePolicy(JSON.parse(JSON.stringify(DEFAULT_POLICY))).ok).toBe(true);
  });

  it("refuses unknown keys at every level", () => {
    expect(errorsOf({ ...DEFAULT_POLICY, extra: 1 })[0]?.message).toMatch(/extra/);
    expect(errorsOf({ ...base, defaults: { ...base.defaults, maxAmount: 1 }, tools: {} })[0]?.path).toBe("defaults");
    expect(errorsOf({ ...base, tools: { pay: { rules: [], mode: "x" } } })[0]?.path).toBe("tools.pay");
    const e = errorsOf(withRules([{ id: "a", effect: "allow", reason: "r", approvers: 2 }]));
    expect(e[0]).toMatchObject({ path: "tools.pay.rules.0" });
    expect(e[0]?.message).toMatch(/approvers/);
  });

  it("refuses, on save, approver roles that may not decide actions (one role model); a stored version still loads", () => {
    const adminOnly = withRules([{ id: "by-admin", effect: "require_approval", eligibleRoles: ["admin"], reason: "r" }]);
    const e = errorsOf(adminOnly);
    expect(e).toEqual([{ path: "tools.pay.rules.0.eligibleRoles", message: expect.stringMatching(/^Rule "by-admin": admin may not decide actions.*reviewer/) }]);
    expect(errorsOf({ ...base, defaults: { ...base.defaults, eligibleRoles: ["reviewer", "requester"] }, tools: {} })[0]).toMatchObject({
      path: "defaults.eligibleRoles", message: expect.stringMatching(/requester may not decide/),
    });
    expect(validatePolicy(adminOnly, { forSave: false }).ok).toBe(true);
  });

  it("reports CEL parse errors with the rule id and path", () => {
    const e = errorsOf(withRules([
      { id: "ok", when: "args.amount_minor > 1", effect: "allow", reason: "r" },
      { id: "broken", when: "args.amount_minor >", effect: "deny", reason: "r" },
    ]));
    expect(e).toHaveLength(1);
    expect(e[0]?.path).toBe("tools.pay.rules.1.when");
    expect(e[0]?.message).toMatch(/^Rule "broken": does not parse/);
  });

  it("reports unknown variables and unknown ctx fields", () => {
    const e = errorsOf(withRules([
      { id: "var", when: "amount > 1", effect: "deny", reason: "r" },
      { id: "field", when: "ctx.recipientDomainz == 'x'", effect: "deny", reason: "r" },
      { id: "fine", when: "'admin' in ctx.requesterRoles && tool == 'pay'", effect: "allow", reason: "r" },
    ]));
    expect(e.map((x) => x.path)).toEqual(["tools.pay.rules.0.when", "tools.pay.rules.1.when"]);
    expect(e[0]?.message).toMatch(/Rule "var".*Unknown variable: amount/);
    expect(e[1]?.message).toMatch(/Rule "field".*recipientDomainz/);
  });

  it("reports type errors and non-boolean conditions", () => {
    const e = errorsOf(withRules([
      { id: "types", when: "ctx.amountMinor > 'big'", effect: "deny", reason: "r" },
      { id: "number", when: "1 + 2", effect: "deny", reason: "r" },
      { id: "string", when: "tool", effect: "deny", reason: "r" },
    ]));
    expect(e.map((x) => x.message.slice(0, 14))).toEqual(['Rule "types": ', 'Rule "number":', 'Rule "string":']);
    expect(e[1]?.message).toMatch(/boolean/);
  });

  it("reports CEL errors together with shape errors", () => {
    const e = errorsOf({ ...withRules([{ id: "x", when: "((", effect: "maybe", reason: "r" }]) });
    expect(e.some((x) => x.path === "tools.pay.rules.0.effect")).toBe(true);
    expect(e.some((x) => x.path === "tools.pay.rules.0.when" && /Rule "x"/.test(x.message))).toBe(true);
  });

  it("refuses duplicate rule ids across tools", () => {
    const e = errorsOf({ ...base, tools: { a: { rules: [{ id: "r1", effect: "allow", reason: "r" }] }, b: { rules: [{ id: "r1", effect: "deny", reason: "r" }] } } });
    expect(e[0]).toMatchObject({ path: "tools.b.rules.0.id" });
  });

  it("refuses approval settings on allow/deny rules, auditors as approvers, and out-of-range numbers", () => {
    expect(errorsOf(withRules([{ id: "a", effect: "allow", quorum: 2, reason: "r" }]))[0]?.message).toMatch(/only applies to require_approval/);
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", eligibleRoles: ["auditor"], reason: "r" }]))[0]?.message).toMatch(/auditors are read-only/);
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", eligibleRoles: [], reason: "r" }])).length).toBe(1);
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", quorum: 0, reason: "r" }])).length).toBe(1);
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", quorum: 1.5, reason: "r" }])).length).toBe(1);
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", ttlSeconds: 5, reason: "r" }])).length).toBe(1);
    expect(errorsOf(withRules([{ id: "a", effect: "allow", reason: "" }])).length).toBe(1);
    expect(errorsOf(withRules([{ id: "A B", effect: "allow", reason: "r" }])).length).toBe(1);
    expect(errorsOf({ ...base, tools: {}, bannedModules: ["os; rm"] }).length).toBe(1);
    expect(errorsOf({ ...base, tools: { "Bad-Name": { rules: [] } } }).length).toBe(1);
    expect(errorsOf({ tools: {} })[0]?.path).toBe("defaults");
  });
});

describe("signed approvals in the policy", () => {
  it("accepts signature: required on a require_approval rule and signatureAtRisk in the defaults, and refuses them elsewhere or misspelt", () => {
    expect(validatePolicy(withRules([{ id: "a", effect: "require_approval", signature: "required", reason: "r" }])).ok).toBe(true);
    expect(validatePolicy({ ...base, defaults: { ...base.defaults, signatureAtRisk: "high" }, tools: {} }).ok).toBe(true);
    expect(errorsOf(withRules([{ id: "a", effect: "allow", signature: "required", reason: "r" }]))[0]).toMatchObject({
      path: "tools.pay.rules.0.signature", message: expect.stringMatching(/only applies to require_approval/),
    });
    expect(errorsOf(withRules([{ id: "a", effect: "require_approval", signature: "yes", reason: "r" }]))[0]?.path).toBe("tools.pay.rules.0.signature");
    expect(errorsOf({ ...base, defaults: { ...base.defaults, signatureAtRisk: "severe" }, tools: {} })[0]?.path).toBe("defaults.signatureAtRisk");
  });
});

describe("escalation and expiry warnings in the policy", () => {
  const reminding = (extra: Record<string, unknown>, rule: Record<string, unknown> = {}) =>
    withRules([{ id: "pay-review", effect: "require_approval", ttlSeconds: 7200, reason: "r", ...rule, ...extra }]);

  it("accepts escalate (after, role, optional channel) and warnBeforeExpiry on a require_approval rule, and evaluates them to seconds", () => {
    const doc = reminding({ escalate: { after: "1h30m", role: "admin", channel: "C0APPROVALS" }, warnBeforeExpiry: "10m" });
    const r = validatePolicy(doc);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const decision = evaluatePolicy(r.policy, { tool: "pay", args: {}, context: { requesterRoles: ["requester"] } });
    expect(decision).toMatchObject({ effect: "require_approval", escalate: { afterSeconds: 5400, role: "admin", channel: "C0APPROVALS" }, warnBeforeExpirySeconds: 600 });
    // A rule without them adds nothing to the decision.
    const plain = validatePolicy(reminding({}));
    if (!plain.ok) throw new Error("expected ok");
    const none = evaluatePolicy(plain.policy, { tool: "pay", args: {}, context: { requesterRoles: ["requester"] } });
    expect(none).not.toHaveProperty("escalate");
    expect(none).not.toHaveProperty("warnBeforeExpirySeconds");
  });

  it("refuses bad durations with a message that shows the accepted form", () => {
    for (const after of ["30", "thirty minutes", "1.5h", "-5m", "0m", "", "30m ago", "1m1h"]) {
      const [error] = errorsOf(reminding({ escalate: { after, role: "admin" } }));
      expect(error, after).toMatchObject({ path: "tools.pay.rules.0.escalate.after" });
      expect(error?.message, after).toMatch(/a duration like 90s, 30m, 2h, 1d or 1h30m/);
    }
    expect(errorsOf(reminding({ warnBeforeExpiry: 600 }))[0]).toMatchObject({
      path: "tools.pay.rules.0.warnBeforeExpiry", message: expect.stringMatching(/a duration like 90s, 30m/),
    });
    expect(errorsOf(reminding({ warnBeforeExpiry: "30s" }))[0]).toMatchObject({ path: "tools.pay.rules.0.warnBeforeExpiry", message: "must be at least 1m" });
  });

  it("refuses reminders that could never fire (not shorter than the approval window), on other effects, and unknown roles or keys", () => {
    expect(errorsOf(reminding({ escalate: { after: "2h", role: "admin" } }))).toEqual([{
      path: "tools.pay.rules.0.escalate.after",
      message: 'Rule "pay-review": escalate.after (2h) is not shorter than the approval window (2h), so it would never fire; shorten it or lengthen ttlSeconds.',
    }]);
    // The defaults' window applies when the rule has none.
    expect(errorsOf(withRules([{ id: "d", effect: "require_approval", warnBeforeExpiry: "1h", reason: "r" }]))[0]).toMatchObject({
      path: "tools.pay.rules.0.warnBeforeExpiry", message: expect.stringMatching(/not shorter than the approval window \(1h\)/),
    });
    expect(errorsOf(withRules([{ id: "a", effect: "allow", escalate: { after: "5m", role: "admin" }, reason: "r" }]))[0]).toMatchObject({
      path: "tools.pay.rules.0.escalate", message: 'Rule "a": escalate only applies to require_approval rules.',
    });
    expect(errorsOf(reminding({ escalate: { after: "5m", role: "manager" } }))[0]?.path).toBe("tools.pay.rules.0.escalate.role");
    expect(errorsOf(reminding({ escalate: { after: "5m", role: "admin", channel: "Bad Channel!" } }))[0]?.path).toBe("tools.pay.rules.0.escalate.channel");
    // A channel's name is refused: Slack posts to its id, which survives a rename.
    expect(errorsOf(reminding({ escalate: { after: "5m", role: "admin", channel: "#approvals" } }))[0]).toMatchObject({
      path: "tools.pay.rules.0.escalate.channel", message: expect.stringMatching(/Slack channel's id \(like C0123ABCD/),
    });
    expect(errorsOf(reminding({ escalate: { after: "5m", role: "admin", to: "x" } }))[0]?.path).toBe("tools.pay.rules.0.escalate");
  });
});
