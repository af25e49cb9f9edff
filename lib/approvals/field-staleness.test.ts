import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { refusal } from "@/tests/refusal";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { rereadActionState } from "@/lib/approvals/reread-action-state";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { changesSinceRequest, describeStateChanges, stateVerdict } from "@/lib/review/state-verdict";

const t = setUpTestDatabase();

const actorOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.requester.id, label: tenant.users.requester.email });
const reviewerOf = (tenant: TestTenant) => ({ tenantId: tenant.id, userId: tenant.users.reviewer.id, roles: tenant.users.reviewer.roles });

async function pending(tenant: TestTenant, tool: string, args: Record<string, unknown>) {
  const outcome = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool, args: args as never });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

const approve = (tenant: TestTenant, p: { actionId: string; payloadHash: string }, who: "reviewer" | "reviewer2" = "reviewer") =>
  decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users[who].member });

const REMINDER = { to: "ap@initech.example", subject: "Payment reminder: INV-1045", body: "780.00 USD outstanding", invoice_number: "INV-1045" };

describe("a reminder for an invoice rests on that invoice", () => {
  it("after the invoice is cancelled, the pending reminder shows the change, refuses Approve, and its re-read is blocked", async () => {
    const tenant = await createTestTenant(t.db);
    const reminder = await pending(tenant, "send_email", REMINDER);

    // "Cancel invoice INV-1045" is approved and runs.
    const cancel = await pending(tenant, "cancel_invoice", { invoice_number: "INV-1045", reason: "Issued in error" });
    expect((await approve(tenant, cancel)).status).toBe("approved");
    const ran = await executeAction(t.db, { tenantId: tenant.id, actionId: cancel.actionId, payloadHash: cancel.payloadHash, executor: { type: "requester" }, actor: actorOf(tenant) });
    expect(ran.state).toBe("succeeded");

    const detail = await loadActionDetail(t.db, reviewerOf(tenant), reminder.actionId);
    expect(stateVerdict(detail!.stateNow)).toBe("changed");
    const changes = changesSinceRequest(detail!.stateNow)!;
    expect(describeStateChanges(changes)).toBe("invoice status open → cancelled; invoice amount due 780.00 → 0.00");
    expect(changes.map((c) => c.path)).not.toContain("invoice.version");
    const queued = (await listReviewQueue(t.db, reviewerOf(tenant))).items.find((i) => i.id === reminder.actionId);
    expect(queued?.stateChanges?.map((c) => c.path)).toContain("invoice.status");

    expect((await refusal(approve(tenant, reminder))).code).toBe("state_changed");
    const reread = await rereadActionState(t.db, { tenantId: tenant.id, actionId: reminder.actionId, member: tenant.users.reviewer.member, payloadHash: reminder.payloadHash });
    expect(reread.status).toBe("denied");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: reminder.actionId } });
    expect(action.statusReason).toContain("the invoice is cancelled");
    expect(await t.db.emailOutbox.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  it("a reminder is refused at execution too when the invoice is cancelled after its approval", async () => {
    const tenant = await createTestTenant(t.db);
    const reminder = await pending(tenant, "send_email", REMINDER);
    expect((await approve(tenant, reminder)).status).toBe("approved");
    await t.db.invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1045" }, data: { status: "cancelled", amountDueMinor: 0, version: { increment: 1 } } });
    const error = await refusal(executeAction(t.db, { tenantId: tenant.id, actionId: reminder.actionId, payloadHash: reminder.payloadHash, executor: { type: "requester" }, actor: actorOf(tenant) }));
    expect(error.code).toBe("state_changed");
    expect(await t.db.emailOutbox.count({ where: { tenantId: tenant.id } })).toBe(0);
  });
});

describe("a vote is voided by a change to a field it rests on, not by any change to the row", () => {
  /** A refund large enough to need two reviewers, with the first approval in. */
  async function halfApprovedRefund(tenant: TestTenant) {
    const p = await pending(tenant, "refund_invoice", { invoice_number: "INV-1044", amount_minor: 200_000, reason: "Goods returned" });
    expect(await approve(tenant, p)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
    return p;
  }

  it("an unrelated update (the due date, the customer's note) leaves the first vote counted: the second approves and it runs", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await halfApprovedRefund(tenant);
    await t.db.invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1044" }, data: { dueDate: new Date("2030-01-31"), version: { increment: 1 } } });
    await t.db.customer.updateMany({ where: { tenantId: tenant.id, externalRef: "CUST-001" }, data: { notes: "Moved to a new office.", version: { increment: 1 } } });
    // A 1.00 refund on another invoice moves nothing this refund rests on.
    await t.db.invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1043" }, data: { amountRefundedMinor: { increment: 100 }, version: { increment: 1 } } });

    const detail = await loadActionDetail(t.db, reviewerOf(tenant), p.actionId);
    expect(stateVerdict(detail!.stateNow)).toBe("unchanged");
    expect(await approve(tenant, p, "reviewer2")).toMatchObject({ status: "approved", approvals: 2, quorum: 2 });
    const ran = await executeAction(t.db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: actorOf(tenant) });
    expect(ran.state).toBe("succeeded");
    expect((await t.db.invoice.findFirstOrThrow({ where: { tenantId: tenant.id, number: "INV-1044" } })).amountRefundedMinor).toBe(200_000);
  });

  it("a change to the refunded amount voids it: the second approval is refused and the page names the field", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await halfApprovedRefund(tenant);
    await t.db.invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1044" }, data: { amountRefundedMinor: { increment: 1_000 }, version: { increment: 1 } } });

    expect((await refusal(approve(tenant, p, "reviewer2"))).code).toBe("state_changed");
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending" });
    const detail = await loadActionDetail(t.db, reviewerOf(tenant), p.actionId);
    const changes = changesSinceRequest(detail!.stateNow)!;
    expect(changes.map((c) => c.path)).toEqual(["invoice.amount_refunded_minor"]);
    expect(describeStateChanges(changes)).toBe("invoice amount refunded 0.00 → 10.00");
  });

  it("an approved refund whose refunded amount changes before it runs is not executed", async () => {
    const tenant = await createTestTenant(t.db);
    const stale = await pending(tenant, "refund_invoice", { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Goods returned" });
    expect((await approve(tenant, stale)).status).toBe("approved");
    await t.db.invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1043" }, data: { amountRefundedMinor: { increment: 100 }, version: { increment: 1 } } });
    const error = await refusal(executeAction(t.db, { tenantId: tenant.id, actionId: stale.actionId, payloadHash: stale.payloadHash, executor: { type: "requester" }, actor: actorOf(tenant) }));
    expect(error.code).toBe("state_changed");
    expect(await t.db.refund.count({ where: { actionId: stale.actionId } })).toBe(0);
  });
});
