import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { type TestTenant, type TestUser } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { queueNeighbours } from "@/lib/review/queue-neighbours";

const t = setUpTestDatabase();
const tenant = setUpTestTenant(t);
const other = setUpTestTenant(t);

async function proposeRefund(amount: number) {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1043", amount_minor: amount, reason: "Customer returned the goods" }, reason: "Asked", stepKey: null,
  });
  if (outcome.state !== "pending") throw new Error(JSON.stringify(outcome));
  return { id: outcome.actionId, payloadHash: outcome.payloadHash };
}

const of = (user: TestUser, on: TestTenant = tenant) => ({ tenantId: on.id, userId: user.id, roles: user.roles });

describe("queueNeighbours", () => {
  it("walks the reviewer's undecided actions in queue order, skips their own votes, and advances past a decided one", async () => {
    const a = await proposeRefund(10_000);
    const b = await proposeRefund(11_000);
    const c = await proposeRefund(12_000);
    const reviewer = tenant.users.reviewer;
    // Same risk: soonest to expire first, i.e. proposal order.
    expect(await queueNeighbours(t.db, of(reviewer), b.id)).toEqual({ previous: a.id, next: c.id });
    // After the last one, next wraps to the first undecided.
    expect(await queueNeighbours(t.db, of(reviewer), c.id)).toEqual({ previous: b.id, next: a.id });

    await decideAction(t.db, { tenantId: tenant.id, actionId: b.id, verdict: "approve", payloadHash: b.payloadHash, reviewer: reviewer.member });
    // b left the queue; deciding it on its page advances to c, not back to the top.
    expect(await queueNeighbours(t.db, of(reviewer), b.id)).toEqual({ previous: a.id, next: c.id });
    expect(await queueNeighbours(t.db, of(reviewer), a.id)).toEqual({ previous: null, next: c.id });

    await decideAction(t.db, { tenantId: tenant.id, actionId: c.id, verdict: "reject", note: "no", payloadHash: c.payloadHash, reviewer: reviewer.member });
    expect(await queueNeighbours(t.db, of(reviewer), c.id)).toEqual({ previous: a.id, next: a.id });
    await decideAction(t.db, { tenantId: tenant.id, actionId: a.id, verdict: "reject", note: "no", payloadHash: a.payloadHash, reviewer: reviewer.member });
    expect(await queueNeighbours(t.db, of(reviewer), a.id)).toEqual({ previous: null, next: null });
  });

  it("never leads to another tenant's actions or to the reviewer's own requests", async () => {
    const mine = await proposeRefund(13_000);
    const stranger = other.users.reviewer;
    expect(await queueNeighbours(t.db, of(stranger, other), mine.id)).toEqual({ previous: null, next: null });
    // The requester may not decide their own request: it is nobody's next for them.
    const requester = { tenantId: tenant.id, userId: tenant.users.requester.id, roles: ["requester" as const, "reviewer" as const] };
    expect(await queueNeighbours(t.db, requester, mine.id)).toEqual({ previous: null, next: null });
    expect((await queueNeighbours(t.db, of(tenant.users.reviewer2), mine.id)).next).toBe(null);
  });
});
