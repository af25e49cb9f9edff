import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { rereadActionState } from "@/lib/approvals/reread-action-state";
import { readDecisionState } from "@/lib/review/read-decision-state";
import { liveOffer } from "@/lib/review/live-decision";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

async function pendingRefund(tenant: TestTenant) {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "Goods returned" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

describe("the decision state an open decision follows", () => {
  it("offers Approve while nothing moved, Re-read once the state changed, and Approve on the re-read revision", async () => {
    const p = await pendingRefund(a);
    const shown = { revision: 1, payloadHash: p.payloadHash };
    const first = await readDecisionState(t.db, a.id, p.actionId);
    expect(first).toMatchObject({ status: "pending", revision: 1, payloadHash: p.payloadHash, state: "unchanged", changes: [] });
    expect(liveOffer(shown, first)).toEqual({ offer: "approve" });

    await t.db.invoice.updateMany({ where: { tenantId: a.id, number: "INV-1044" }, data: { amountRefundedMinor: 200, version: { increment: 1 } } });
    const changed = await readDecisionState(t.db, a.id, p.actionId);
    expect(changed?.state).toBe("changed");
    expect(changed?.changes.find((c) => c.path === "invoice.amount_refunded_minor")).toMatchObject({ before: 0, after: 200 });
    expect(liveOffer(shown, changed)).toMatchObject({ offer: "reread" });

    const next = await rereadActionState(t.db, { tenantId: a.id, actionId: p.actionId, member: a.users.reviewer.member, payloadHash: p.payloadHash });
    const after = await readDecisionState(t.db, a.id, p.actionId);
    // The dialog still showing revision 1 is told another is current; once it shows revision 2, Approve.
    expect(liveOffer(shown, after)).toEqual({ offer: "moved", revision: next.revision });
    expect(liveOffer({ revision: next.revision, payloadHash: after!.payloadHash }, after)).toEqual({ offer: "approve" });
  });

  it("is null for another tenant's action: its state is not read across tenants", async () => {
    const p = await pendingRefund(a);
    expect(await readDecisionState(t.db, b.id, p.actionId)).toBeNull();
  });
});
