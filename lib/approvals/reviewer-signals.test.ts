import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { Prisma } from "@/lib/generated/prisma/client";
import { refusal } from "@/tests/refusal";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { savePolicy } from "@/lib/policy/save-policy";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { reviewerSignals } from "@/lib/review/reviewer-signals";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

const reviewer = (tenant: TestTenant, who: "reviewer" | "reviewer2" = "reviewer") =>
  ({ userId: tenant.users[who].id, label: tenant.users[who].email, roles: ["reviewer" as const], sessionId: null });

async function pendingRefund(tenant: TestTenant, amountMinor = 45_000) {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1043", amount_minor: amountMinor, reason: "Customer returned the goods" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

/** The default policy with a minimum view time on small refunds. */
function withMinView(seconds: unknown): Policy {
  const policy = structuredClone(DEFAULT_POLICY) as Policy;
  const rule = policy.tools.refund_invoice.rules.find((r) => r.id === "refund-small")!;
  (rule as Record<string, unknown>).minViewSeconds = seconds;
  return policy;
}

const admin = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });
/** What a page claims its reviewer looked for: far more than any revision here has existed. */
const CLAIMED_VIEW_MS = 10 * 60_000;

describe("time on screen and the minimum view time", () => {
  it("stores the time on screen clamped to the revision's age, and the audit event carries it", async () => {
    const p = await pendingRefund(b);
    await decideAction(t.db, { tenantId: b.id, actionId: p.actionId, reviewer: reviewer(b), verdict: "approve", payloadHash: p.payloadHash, viewedMs: 9_000_000 });
    const d = await t.db.decision.findFirstOrThrow({ where: { actionId: p.actionId } });
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId } });
    // Nobody read it for 2.5 hours: it existed for less than a minute.
    expect(d.viewedMs).not.toBeNull();
    expect(d.viewedMs!).toBeLessThanOrEqual(d.createdAt.getTime() - revision.createdAt.getTime() + 1);
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: b.id, type: "decision.recorded", actionId: p.actionId } });
    expect((event.data as { viewedMs?: number }).viewedMs).toBe(d.viewedMs);
    await expectEventsToFitTheirSchemas(t.db, b.id);
  });

  it("keeps a recorded decision immutable (only void may change)", async () => {
    const p = await pendingRefund(b);
    await decideAction(t.db, { tenantId: b.id, actionId: p.actionId, reviewer: reviewer(b), verdict: "approve", payloadHash: p.payloadHash, viewedMs: 10 });
    const d = await t.db.decision.findFirstOrThrow({ where: { actionId: p.actionId } });
    await expect(t.db.$executeRaw(Prisma.sql`UPDATE "Decision" SET "viewedMs" = 999999 WHERE id = ${d.id}::uuid`)).rejects.toThrow(/immutable/);
    await expect(t.db.$executeRaw(Prisma.sql`UPDATE "Decision" SET verdict = 'reject' WHERE id = ${d.id}::uuid`)).rejects.toThrow(/immutable/);
    expect(await t.db.$executeRaw(Prisma.sql`UPDATE "Decision" SET void = true WHERE id = ${d.id}::uuid`)).toBe(1);
  });

  it("refuses a policy whose minViewSeconds is out of range or on a rule that needs no approval", async () => {
    const bad = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: withMinView(0), actor: admin(a) }));
    expect(bad.code).toBe("invalid_policy");
    const denyRule = structuredClone(DEFAULT_POLICY) as Policy;
    (denyRule.tools.refund_invoice.rules[0] as Record<string, unknown>).minViewSeconds = 5;
    const onDeny = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: denyRule, actor: admin(a) }));
    expect(JSON.stringify(onDeny.details)).toContain("minViewSeconds only applies to require_approval rules");
  });

  it("refuses a quicker approval with min_view_time (audited), accepts a rejection, and counts a long enough look", async () => {
    expect(await savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: withMinView(2), actor: admin(a) })).toEqual({ version: 2 });
    const p = await pendingRefund(a);
    const quick = await refusal(decideAction(t.db, { tenantId: a.id, actionId: p.actionId, reviewer: reviewer(a), verdict: "approve", payloadHash: p.payloadHash, viewedMs: 1_200 }));
    expect(quick.code).toBe("min_view_time");
    expect(quick.message).toContain("at least 2 seconds");
    const none = await refusal(decideAction(t.db, { tenantId: a.id, actionId: p.actionId, reviewer: reviewer(a), verdict: "approve", payloadHash: p.payloadHash }));
    expect(none.code).toBe("min_view_time");
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    const refused = await t.db.auditEvent.count({ where: { tenantId: a.id, type: "decision.refused", status: "min_view_time" } });
    expect(refused).toBe(2);

    // A page cannot claim more time than the revision has existed: 10 minutes are counted as its age
    // (over 2 s here, and far under 10 minutes however slow the machine).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const ok = await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, reviewer: reviewer(a), verdict: "approve", payloadHash: p.payloadHash, viewedMs: CLAIMED_VIEW_MS });
    expect(ok.status).toBe("approved");

    const r = await pendingRefund(a);
    expect((await decideAction(t.db, { tenantId: a.id, actionId: r.actionId, reviewer: reviewer(a, "reviewer2"), verdict: "reject", note: "Not ours", payloadHash: r.payloadHash, viewedMs: 100 })).status).toBe("rejected");
  });
});

describe("reviewer signals", () => {
  it("reports approval rate, latency and median time on screen per reviewer, for one tenant only", async () => {
    const signals = await reviewerSignals(t.db, a.id);
    const first = signals.find((s) => s.reviewerId === a.users.reviewer.id)!;
    expect(first).toMatchObject({ reviewer: a.users.reviewer.email, decisions: 1, approvalRate: 1, viewedDecisions: 1 });
    // Clamped to the revision's age: at least the 2.1 s waited, less than the 10 minutes claimed.
    expect(first.medianViewedMs).toBeGreaterThanOrEqual(2_000);
    expect(first.medianViewedMs).toBeLessThan(CLAIMED_VIEW_MS);
    expect(first.medianLatencyMs).toBeGreaterThanOrEqual(2_000);
    const second = signals.find((s) => s.reviewerId === a.users.reviewer2.id)!;
    expect(second).toMatchObject({ decisions: 1, approvalRate: 0 });
    // Tenant b's reviewer decided twice there, and appears only in b's signals.
    expect(signals.some((s) => s.reviewerId === b.users.reviewer.id)).toBe(false);
    expect((await reviewerSignals(t.db, b.id)).find((s) => s.reviewerId === b.users.reviewer.id)?.decisions).toBe(2);
  });
});
