import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction, type ProposalOutcome } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import type { RiskTag } from "@/lib/risk/risk-tag";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const actor = () => ({ type: "user" as const, id: a.users.requester.id, label: a.users.requester.email });

function propose(tool: string, args: Record<string, unknown>): Promise<ProposalOutcome> {
  return proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool, args, reason: "The customer asked" });
}

async function currentTags(actionId: string): Promise<RiskTag[]> {
  const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId, status: "current" } });
  return revision.riskTags as RiskTag[];
}

/** Approves and executes a pending action with one reviewer (quorum 1). */
async function approveAndRun(outcome: ProposalOutcome) {
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: outcome.actionId, verdict: "approve", payloadHash: outcome.payloadHash, reviewer: a.users.reviewer.member });
  return executeAction(t.db, { tenantId: a.id, actionId: outcome.actionId, payloadHash: outcome.payloadHash, executor: { type: "requester" }, actor: actor() });
}

describe("arguments checked against the state they rest on", () => {
  it("refuses a refund above what was paid before any reviewer sees it, with the finding as a critical tag", async () => {
    const outcome = await propose("refund_invoice", { invoice_number: "INV-1043", amount_minor: 150_000, reason: "Goods returned" });
    expect(outcome.state).toBe("denied");
    if (outcome.state !== "denied") return;
    expect(outcome.reason).toContain("A refund of 1,500.00 USD is more than the 450.00 USD refundable on INV-1043");
    expect(outcome.riskLevel).toBe("critical");
    const tag = (await currentTags(outcome.actionId)).find((x) => x.id === "state.refund-exceeds-refundable");
    expect(tag).toMatchObject({ severity: "critical", source: "state", path: "amount_minor, invoice_number" });
    const queue = await listReviewQueue(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] });
    expect(queue.items.map((i) => i.id)).not.toContain(outcome.actionId);
    expect(await t.db.refund.count({ where: { tenantId: a.id } })).toBe(0);
  });

  it("lets a refund of exactly the refundable amount through to a reviewer", async () => {
    const outcome = await propose("refund_invoice", { invoice_number: "INV-1043", amount_minor: 45_000, reason: "Goods returned" });
    expect(outcome.state).toBe("pending");
    if (outcome.state !== "pending") return;
    expect((await currentTags(outcome.actionId)).some((x) => x.source === "state")).toBe(false);
  });

  it("counts what was already refunded: paid minus refunded is the limit", async () => {
    const first = await approveAndRun(await propose("refund_invoice", { invoice_number: "INV-1044", amount_minor: 80_000, reason: "Partial return" }));
    expect(first.state).toBe("succeeded");
    const over = await propose("refund_invoice", { invoice_number: "INV-1044", amount_minor: 1_120_001, reason: "Rest of it" });
    expect(over.state).toBe("denied");
    if (over.state === "denied") expect(over.reason).toContain("the 11,200.00 USD refundable on INV-1044 (paid 12,000.00 USD, already refunded 800.00 USD)");
    const exact = await propose("refund_invoice", { invoice_number: "INV-1044", amount_minor: 1_120_000, reason: "Rest of it" });
    expect(exact.state).toBe("pending");
  });

  it("refuses cancelling an invoice that is already cancelled, or paid", async () => {
    const cancelled = await approveAndRun(await propose("cancel_invoice", { invoice_number: "INV-1045", reason: "Order withdrawn" }));
    expect(cancelled.state).toBe("succeeded");
    const again = await propose("cancel_invoice", { invoice_number: "INV-1045", reason: "Order withdrawn" });
    expect(again.state).toBe("denied");
    if (again.state === "denied") expect(again.reason).toContain("INV-1045 is already cancelled");
    const paid = await propose("cancel_invoice", { invoice_number: "INV-1043", reason: "Wrong invoice" });
    expect(paid.state).toBe("denied");
    if (paid.state === "denied") expect(paid.reason).toContain("INV-1043 is paid, not open");
  });

  it("refuses an email about a customer who opted out, and still sends one to a customer who did not", async () => {
    const optedOut = await propose("send_email", {
      to: "billing@umbrella.example", subject: "Reminder", body: "Please pay INV-1047.", invoice_number: "INV-1047",
    });
    expect(optedOut.state).toBe("denied");
    if (optedOut.state === "denied") expect(optedOut.reason).toContain("Customer CUST-004 has opted out of email");
    const fine = await propose("send_email", { to: "billing@acme.example", subject: "Reminder", body: "Please pay INV-1042.", invoice_number: "INV-1042" });
    expect(fine.state).toBe("pending");
  });

  it("judges a reviewer's edit the same way: raising a refund above the refundable amount denies the new revision", async () => {
    const outcome = await propose("refund_invoice", { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Goods returned" });
    if (outcome.state !== "pending") throw new Error("expected pending");
    const next = await editAction(t.db, {
      tenantId: a.id, actionId: outcome.actionId, editor: a.users.reviewer.member, payloadHash: outcome.payloadHash,
      args: { invoice_number: "INV-1043", amount_minor: 90_000, reason: "Goods returned" },
    });
    expect(next.status).toBe("denied");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: outcome.actionId } });
    expect(action.status).toBe("denied");
    expect(action.statusReason).toContain("more than the 450.00 USD refundable");
    expect((await currentTags(outcome.actionId)).map((x) => x.id)).toContain("state.refund-exceeds-refundable");
  });

  it("writes audit events that fit their schemas", async () => {
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });
});
