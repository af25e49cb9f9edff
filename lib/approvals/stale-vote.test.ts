import { Client } from "pg";
import { queuedBehind } from "@/tests/action-lock";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { refusal } from "@/tests/refusal";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { rereadActionState } from "@/lib/approvals/reread-action-state";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

async function pendingRefund(tenant: TestTenant, invoice: string, amountMinor: number) {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Goods returned" },
  });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

/** Someone else refunds part of the invoice after the request (another action, the back office). */
const REFUND_ELSEWHERE = `UPDATE "Invoice" SET "amountRefundedMinor" = "amountRefundedMinor" + $3, version = version + 1
  WHERE "tenantId" = $1::uuid AND number = $2`;

async function refundElsewhere(tenant: TestTenant, invoice: string, amountMinor: number) {
  await t.db.$executeRawUnsafe(REFUND_ELSEWHERE, tenant.id, invoice, amountMinor);
}

const approve = (tenant: TestTenant, p: { actionId: string; payloadHash: string }, who: keyof TestTenant["users"] = "reviewer") =>
  decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users[who].member });

const refusedVotes = (actionId: string) =>
  t.db.auditEvent.findMany({ where: { type: "decision.refused", data: { path: ["actionId"], equals: actionId } }, orderBy: { id: "asc" } });

describe("an approval rests on the state the request snapshot recorded (checked by the vote itself)", () => {
  it("refuses to approve an action whose state changed since request: audited as state_changed, nothing else written", async () => {
    const p = await pendingRefund(a, "INV-1044", 100_000);
    await refundElsewhere(a, "INV-1044", 30_000);
    const error = await refusal(approve(a, p));
    expect(error).toMatchObject({ code: "state_changed", status: 409 });
    expect(error.message).toMatch(/changed since it was requested.*re-read the state/);
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending", currentRevision: 1, decidedAt: null });
    const [event] = await refusedVotes(p.actionId);
    expect(event).toMatchObject({ actorId: a.users.reviewer.id, status: "state_changed", outcome: "refused" });
    expect(event.data).toMatchObject({ code: "state_changed", payloadHash: p.payloadHash });
    expect(await t.db.auditEvent.count({ where: { type: "decision.recorded", data: { path: ["payloadHash"], equals: p.payloadHash } } })).toBe(0);

    // Re-reading the state gives a revision over the state as it is now, which may be approved.
    const next = await rereadActionState(t.db, { tenantId: a.id, actionId: p.actionId, member: a.users.reviewer.member, payloadHash: p.payloadHash });
    expect((await approve(a, { actionId: p.actionId, payloadHash: next.payloadHash })).status).toBe("approved");
  });

  it("still lets a reviewer reject an action whose state changed", async () => {
    const p = await pendingRefund(a, "INV-1043", 10_000);
    await refundElsewhere(a, "INV-1043", 5_000);
    const out = await decideAction(t.db, {
      tenantId: a.id, actionId: p.actionId, verdict: "reject", note: "Already partly refunded", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member,
    });
    expect(out.status).toBe("rejected");
    expect(await refusedVotes(p.actionId)).toEqual([]);
  });

  it("a state change between two approvals of a quorum of two refuses the second: the first alone does not approve", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await pendingRefund(tenant, "INV-1044", 200_000);
    expect(await approve(tenant, p)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
    await refundElsewhere(tenant, "INV-1044", 1_000);
    expect((await refusal(approve(tenant, p, "reviewer2"))).code).toBe("state_changed");
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending" });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(1);
  });

  it("votes racing a state change that is being committed wait for it and are refused (real concurrency against PostgreSQL)", async () => {
    const tenant = await createTestTenant(t.db);
    const refunds = [await pendingRefund(tenant, "INV-1044", 10_000), await pendingRefund(tenant, "INV-1044", 20_000), await pendingRefund(tenant, "INV-1044", 30_000)];
    const rejected = await pendingRefund(tenant, "INV-1044", 40_000);
    // The change is written and not yet committed when the votes start: a vote that read the
    // state without its lock would see the old state and record an approval the commit then
    // makes stale. The vote's locked re-read waits for the commit and sees the new state.
    const change = new Client({ connectionString: t.url });
    await change.connect();
    try {
      await change.query("BEGIN");
      await change.query(REFUND_ELSEWHERE, [tenant.id, "INV-1044", 1_000]);
      let settled = 0;
      const track = <T,>(promise: Promise<T>) => promise.finally(() => { settled += 1; });
      const approvals = refunds.map((p, i) => track(Promise.allSettled([approve(tenant, p, (["reviewer", "reviewer2", "reviewer3"] as const)[i])]).then(([r]) => r)));
      // A rejection needs no state: it does not wait for the change.
      const rejection = await decideAction(t.db, {
        tenantId: tenant.id, actionId: rejected.actionId, verdict: "reject", note: "Not this one", payloadHash: rejected.payloadHash, reviewer: tenant.users.reviewer.member,
      });
      expect(rejection.status).toBe("rejected");
      // Commit only once every approval waits on the changed invoice's lock (or has ended, which
      // would be the defect this test is about).
      for (;;) {
        const waiting = await queuedBehind(change);
        if (waiting >= refunds.length || settled === refunds.length) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(settled).toBe(0);
      await change.query("COMMIT");
      const results = await Promise.all(approvals);
      expect(results.map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : r.value.status))).toEqual(["state_changed", "state_changed", "state_changed"]);
    } finally {
      await change.end();
    }
    for (const p of refunds) {
      expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
      expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending" });
    }
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "decision.refused", status: "state_changed" } })).toBe(3);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("writes audit events that fit their schemas", async () => {
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });
});
