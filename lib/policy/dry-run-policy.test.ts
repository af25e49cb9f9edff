import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { readRecordedRevisions } from "@/lib/db/statements/actions/read-recorded-revisions";
import { DEFAULT_POLICY } from "./default-policy";
import { dryRunPolicy } from "./dry-run-policy";
import type { Policy } from "./policy-document";
import { testPolicySample } from "./test-policy-sample";

let a: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

const t = setUpTestDatabase();
beforeAll(async () => {
  [a, other] = [await createTestTenant(t.db), await createTestTenant(t.db)];
  const propose = (args: Record<string, unknown>, tool = "refund_invoice") => proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool, args });
  const small = await propose({ invoice_number: "INV-1044", amount_minor: 50_000, reason: "late delivery" });
  const large = await propose({ invoice_number: "INV-1044", amount_minor: 200_000, reason: "damaged goods" });
  const read = await propose({ invoice_number: "INV-1044" }, "get_invoice");
  for (const [k, p] of Object.entries({ small, large, read })) ids[k] = p.actionId;
  await proposeAction(t.db, { tenantId: other.id, requester: other.requester, tool: "get_invoice", args: { invoice_number: "INV-1044" } });
});

/** The default policy with refunds above 1,000.00 denied outright instead of needing two reviewers. */
function stricterRefunds(): Policy {
  const draft = structuredClone(DEFAULT_POLICY);
  const large = draft.tools.refund_invoice.rules.find((r) => r.id === "refund-large");
  if (!large) throw new Error("default policy changed");
  Object.assign(large, { effect: "deny", quorum: undefined, eligibleRoles: undefined });
  return JSON.parse(JSON.stringify(draft)) as Policy;
}

describe("dry run of a draft policy over recent actions", () => {
  it("shows, newest first, how each recent action would be decided under the draft beside what was decided, and writes nothing", async () => {
    const before = { actions: await t.db.action.count(), events: await t.db.auditEvent.count() };
    const result = await dryRunPolicy(t.db, { tenantId: a.id, document: stricterRefunds(), limit: 10 });
    expect(result.rows.map((r) => r.actionId)).toEqual([ids.read, ids.large, ids.small]);
    const byId = new Map(result.rows.map((r) => [r.actionId, r]));
    expect(byId.get(ids.large)).toMatchObject({
      tool: "refund_invoice", summary: expect.stringContaining("INV-1044"), changed: true,
      recorded: { effect: "require_approval", ruleId: "refund-large", policyVersion: 1 },
      draft: { effect: "deny", ruleId: "refund-large" },
      rules: [
        { ruleId: "refund-over-limit", outcome: "not_matched", decides: false },
        { ruleId: "refund-large", outcome: "matched", decides: true },
        { ruleId: "refund-small", outcome: "matched", decides: false },
      ],
    });
    expect(byId.get(ids.small)).toMatchObject({ changed: false, recorded: { effect: "require_approval", ruleId: "refund-small" }, draft: { effect: "require_approval", ruleId: "refund-small", quorum: 1 } });
    expect(byId.get(ids.read)).toMatchObject({ changed: false, draft: { effect: "allow" } });
    expect(result.changed).toBe(1);
    expect({ actions: await t.db.action.count(), events: await t.db.auditEvent.count() }).toEqual(before);
  });

  it("takes the last N only, one action by id, never another tenant's, and refuses an invalid draft", async () => {
    expect((await dryRunPolicy(t.db, { tenantId: a.id, document: DEFAULT_POLICY, limit: 2 })).rows.map((r) => r.actionId)).toEqual([ids.read, ids.large]);
    const one = await dryRunPolicy(t.db, { tenantId: a.id, document: DEFAULT_POLICY, limit: 1, actionId: ids.small });
    expect(one.rows.map((r) => r.actionId)).toEqual([ids.small]);
    expect(await refusal(dryRunPolicy(t.db, { tenantId: other.id, document: DEFAULT_POLICY, limit: 1, actionId: ids.small }))).toMatchObject({ code: "not_found", status: 404 });
    const broken = { ...DEFAULT_POLICY, tools: { ...DEFAULT_POLICY.tools, refund_invoice: { rules: [{ id: "x", when: "args.amount > 1", effect: "deny", reason: "r" }] } } };
    const e = await refusal(dryRunPolicy(t.db, { tenantId: a.id, document: broken, limit: 5 }));
    expect(e).toMatchObject({ code: "invalid_policy", status: 400 });
    expect(JSON.stringify(e.details)).toContain("args.amount is not an argument of refund_invoice");
  });
});

describe("dry run over what was stored", () => {
  it("reads each revision's stored JSON as text, for the compute pool to parse, and rebuilds the tool's facts from its request snapshot", async () => {
    const email = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "billing@acme.example", subject: "Your refund", body: "x".repeat(19_000), invoice_number: "INV-1044" },
    });
    const [stored] = await readRecordedRevisions(t.db, { tenantId: a.id, limit: 1, actionId: email.actionId });
    // The arguments and the snapshot come back as text, for the pool to parse (pg would parse jsonb here).
    expect(typeof stored.argsText).toBe("string");
    expect(typeof stored.snapshotText).toBe("string");
    expect(JSON.parse(stored.snapshotText ?? "null")).toMatchObject({ customer: { verified_domains: ["acme.example"] } });
    // The customer's verified domains come from the recorded snapshot: the recipient is inside them,
    // so the draft decides as was recorded (without them the rule for outside domains would match).
    const [row] = (await dryRunPolicy(t.db, { tenantId: a.id, document: DEFAULT_POLICY, limit: 1, actionId: email.actionId })).rows;
    expect(row).toMatchObject({ tool: "send_email", recorded: { ruleId: "send-email-verified" }, draft: { ruleId: "send-email-verified" }, changed: false });
    expect(row.rules.find((r) => r.ruleId === "send-email-outside-domain")).toMatchObject({ outcome: "not_matched" });
  });
});

describe("test a draft on a sample payload", () => {
  const sample = { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "whole order" }, requesterRoles: ["requester"], riskLevel: "high" as const, riskTags: [] };

  it("decides the sample under the draft and shows which rule decided and how each fared", async () => {
    const trace = await testPolicySample(t.db, { tenantId: a.id, document: DEFAULT_POLICY, sample });
    expect(trace.decision).toMatchObject({ effect: "deny", ruleId: "refund-over-limit" });
    expect(trace.rules.map((r) => [r.ruleId, r.outcome, r.decides])).toEqual([
      ["refund-over-limit", "matched", true], ["refund-large", "matched", false], ["refund-small", "matched", false],
    ]);
    const ctxRule = structuredClone(DEFAULT_POLICY);
    ctxRule.tools.refund_invoice.rules.unshift({ id: "high-risk", when: "ctx.riskLevel == 'high' && 'requester' in ctx.requesterRoles", effect: "require_approval", quorum: 3, reason: "r" });
    expect((await testPolicySample(t.db, { tenantId: a.id, document: ctxRule, sample })).decision).toMatchObject({ ruleId: "high-risk", quorum: 3 });
  });

  it("refuses arguments the tool would refuse and state that does not exist, with what to fix", async () => {
    const badArgs = await refusal(testPolicySample(t.db, { tenantId: a.id, document: DEFAULT_POLICY, sample: { ...sample, args: { invoice_number: "INV-1044", amount: 5 } } }));
    expect(badArgs).toMatchObject({ code: "invalid_args", message: expect.stringMatching(/not valid for refund_invoice/) });
    const missing = await refusal(testPolicySample(t.db, { tenantId: a.id, document: DEFAULT_POLICY, sample: { ...sample, args: { ...sample.args, invoice_number: "INV-9999" } } }));
    expect(missing).toMatchObject({ code: "not_found", message: expect.stringMatching(/cannot be read/) });
    expect(await refusal(testPolicySample(t.db, { tenantId: a.id, document: DEFAULT_POLICY, sample: { ...sample, tool: "run_pyhton" } }))).toMatchObject({ code: "unknown_tool" });
  });
});

describe("a draft that reads budgets", () => {
  /** Refunds past 1,000.00 a day per requester are denied; the rest as the default policy says. */
  function dailyRefundBudget(): Policy {
    const draft = structuredClone(DEFAULT_POLICY);
    draft.tools.refund_invoice.rules.unshift({
      id: "refund-budget", effect: "deny", reason: "Over the requester's daily refund budget",
      when: 'budget.window("24h").sum("refund_invoice", "amount_minor", "requester") + args.amount_minor > 100000',
    });
    return draft;
  }

  it("dry run: judges each recorded call with what its requester had spent or reserved before it", async () => {
    const { rows } = await dryRunPolicy(t.db, { tenantId: a.id, document: dailyRefundBudget(), limit: 10 });
    const byId = new Map(rows.map((r) => [r.actionId, r]));
    // The first refund (500.00) fits; the second (2,000.00 after 500.00 reserved) is over.
    expect(byId.get(ids.small)).toMatchObject({ draft: { ruleId: "refund-small" }, changed: false });
    expect(byId.get(ids.large)).toMatchObject({ draft: { effect: "deny", ruleId: "refund-budget" }, changed: true });
    expect(byId.get(ids.large)?.rules[0]).toMatchObject({ ruleId: "refund-budget", outcome: "matched", decides: true });
  });

  it("test this policy: a tenant budget reads the organisation's totals now, and the trace evaluates it", async () => {
    const draft = structuredClone(DEFAULT_POLICY);
    draft.tools.refund_invoice.rules.unshift({
      id: "tenant-budget", effect: "deny", reason: "Over the organisation's daily refund budget",
      when: 'budget.window("24h").sum("refund_invoice", "amount_minor", "tenant") + args.amount_minor > 250000',
    });
    const sample = { tool: "refund_invoice", requesterRoles: ["requester"], riskLevel: "low" as const, riskTags: [] };
    // 2,500.00 already waits for review in this organisation (500.00 + 2,000.00).
    const fits = await testPolicySample(t.db, { tenantId: a.id, document: draft, sample: { ...sample, args: { invoice_number: "INV-1044", amount_minor: 1, reason: "one cent" } } });
    expect(fits.decision.ruleId).toBe("tenant-budget");
    const elsewhere = await testPolicySample(t.db, { tenantId: other.id, document: draft, sample: { ...sample, args: { invoice_number: "INV-1044", amount_minor: 1, reason: "one cent" } } });
    expect(elsewhere.decision.ruleId).not.toBe("tenant-budget");
    expect(elsewhere.rules[0]).toMatchObject({ ruleId: "tenant-budget", outcome: "not_matched" });
  });
});

describe("dry run of an unchanged draft", () => {
  it("reports nothing decided differently: state-check and scan denials are not the policy's decision", async () => {
    const tenant = await createTestTenant(t.db);
    const propose = (tool: string, args: Record<string, unknown>) => proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool, args });
    // More than was paid on INV-1043 (450.00): refused by the refund's state check before the policy.
    const overRefund = await propose("refund_invoice", { invoice_number: "INV-1043", amount_minor: 50_000, reason: "goodwill" });
    // A banned import: refused by the code scan before the policy.
    const blocked = await propose("run_python", { code: "import os\nprint(os.listdir('/'))\n", language: "python" });
    const fine = await propose("refund_invoice", { invoice_number: "INV-1044", amount_minor: 50_000, reason: "late delivery" });
    expect([overRefund.state, blocked.state, fine.state]).toEqual(["denied", "denied", "pending"]);

    const result = await dryRunPolicy(t.db, { tenantId: tenant.id, document: DEFAULT_POLICY, limit: 10 });
    expect(result.changed).toBe(0);
    const byId = new Map(result.rows.map((r) => [r.actionId, r]));
    for (const id of [overRefund.actionId, blocked.actionId]) {
      expect(byId.get(id)).toMatchObject({ recorded: { effect: "deny", ruleId: null }, refusedBeforePolicy: true, changed: false });
    }
    expect(byId.get(fine.actionId)).toMatchObject({ refusedBeforePolicy: false, changed: false });

    // A real change of the policy's decision still counts, for the refused action too.
    const result2 = await dryRunPolicy(t.db, { tenantId: tenant.id, document: denySmallRefunds(), limit: 10 });
    expect(result2.rows.filter((r) => r.changed).map((r) => r.actionId).sort()).toEqual([overRefund.actionId, fine.actionId].sort());
  });
});

/** The default policy with refunds up to 1,000.00 denied instead of needing one reviewer. */
function denySmallRefunds(): Policy {
  const draft = structuredClone(DEFAULT_POLICY);
  const small = draft.tools.refund_invoice.rules.find((r) => r.id === "refund-small");
  if (!small) throw new Error("default policy changed");
  Object.assign(small, { effect: "deny", quorum: undefined, eligibleRoles: undefined });
  return JSON.parse(JSON.stringify(draft)) as Policy;
}
