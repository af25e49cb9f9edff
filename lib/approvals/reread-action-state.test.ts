import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { rereadActionState } from "@/lib/approvals/reread-action-state";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { loadActionDetail } from "@/lib/review/load-action-detail";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

async function pendingRefund(tenant: TestTenant, invoice: string, amountMinor: number) {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Goods returned" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

/** Someone else refunds part of the invoice behind the queue's back (another action, the back office). */
async function refundElsewhere(tenant: TestTenant, invoice: string, amountMinor: number) {
  await t.db.invoice.updateMany({
    where: { tenantId: tenant.id, number: invoice },
    data: { amountRefundedMinor: { increment: amountMinor }, version: { increment: 1 } },
  });
}

const queueRow = async (tenant: TestTenant, actionId: string) =>
  (await listReviewQueue(t.db, { tenantId: tenant.id, userId: tenant.users.reviewer.id, roles: ["reviewer"] })).items.find((i) => i.id === actionId);

describe("state changed since request", () => {
  it("the queue row says what changed, and the action page's effect table computes Now from the state now", async () => {
    const p = await pendingRefund(a, "INV-1044", 100_000);
    expect((await queueRow(a, p.actionId))?.stateChanges).toBeNull();
    await refundElsewhere(a, "INV-1044", 30_000);
    const row = await queueRow(a, p.actionId);
    expect(row?.stateChanges?.map((c) => c.path)).toEqual(["invoice.amount_refunded_minor"]);
    expect(row?.stateChanges?.find((c) => c.path === "invoice.amount_refunded_minor")).toMatchObject({ before: 0, after: 30_000 });

    const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, p.actionId);
    expect(detail?.stateNow.state).toBe("changed");
    if (detail?.stateNow.state !== "changed") return;
    expect(detail.current.preview?.before).toMatchObject({ amount_refunded_minor: 0 });
    expect(detail.stateNow.effectNow).toMatchObject({ amount_refunded_minor: 30_000 });
  });

  it("Re-read state makes revision 2 over the state now, which the reader may decide", async () => {
    const p = await pendingRefund(a, "INV-1043", 10_000);
    await refundElsewhere(a, "INV-1043", 5_000);
    const next = await rereadActionState(t.db, { tenantId: a.id, actionId: p.actionId, member: a.users.reviewer.member, payloadHash: p.payloadHash });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    expect(next.payloadHash).not.toBe(p.payloadHash);
    const row = await queueRow(a, p.actionId);
    expect(row).toMatchObject({ revision: 2, stateChanges: null, approvals: 0, blockedReason: null });
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId, revision: 2 } });
    expect(revision.origin).toBe(`state re-read by ${a.users.reviewer.email}`);
    expect(JSON.stringify(revision.diff)).toContain("snapshot.invoice.amount_refunded_minor");
    const vote = await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: next.payloadHash, reviewer: a.users.reviewer.member });
    expect(vote.status).toBe("approved");
  });

  it("a re-read over a state the arguments no longer fit is refused with the finding", async () => {
    const p = await pendingRefund(b, "INV-1043", 40_000);
    await refundElsewhere(b, "INV-1043", 10_000);
    const next = await rereadActionState(t.db, { tenantId: b.id, actionId: p.actionId, member: b.users.reviewer.member, payloadHash: p.payloadHash });
    expect(next.status).toBe("denied");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    expect(action.statusReason).toContain("more than the 350.00 USD refundable on INV-1043");
    expect(await queueRow(b, p.actionId)).toBeUndefined();
  });

  it("refuses a re-read when nothing changed, with a stale hash, for the wrong role and from another tenant", async () => {
    const p = await pendingRefund(b, "INV-1044", 20_000);
    const input = { tenantId: b.id, actionId: p.actionId, member: b.users.reviewer.member, payloadHash: p.payloadHash };
    expect((await refusal(rereadActionState(t.db, input))).code).toBe("state_unchanged");
    await refundElsewhere(b, "INV-1044", 1_000);
    expect((await refusal(rereadActionState(t.db, { ...input, payloadHash: "0".repeat(64) }))).code).toBe("stale_hash");
    expect((await refusal(rereadActionState(t.db, { ...input, member: b.users.auditor.member }))).code).toBe("not_eligible");
    expect((await refusal(rereadActionState(t.db, { ...input, tenantId: a.id, member: a.users.reviewer.member }))).code).toBe("not_found");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).currentRevision).toBe(1);
  });

  it("writes audit events that fit their schemas", async () => {
    await expectEventsToFitTheirSchemas(t.db, a.id);
    await expectEventsToFitTheirSchemas(t.db, b.id);
  });
});
