import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createTestTenant, holdTask, type TestTenant } from "@/tests/factories";
import { proposeAction, type ProposalOutcome } from "@/lib/approvals/propose-action";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { startTask } from "@/lib/tasks/start-task";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";

// Concurrent proposals share one write statement (lib/approvals/write-proposal.ts). These tests
// propose many at once and check that each is written whole, to its own rows, or fails alone.

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

const refund = (tenant: TestTenant, amountMinor: number, extra: { taskId?: string; taskLeaseOwner?: string; agentCallId?: string } = {}) =>
  proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: `Refund ${amountMinor}` }, ...extra,
  });

describe("proposals written together", () => {
  it("60 concurrent proposals of two tenants: each has its own action, revision, snapshot and one audit event", async () => {
    const amounts = Array.from({ length: 60 }, (_, i) => 1_000 + i);
    const outcomes = await Promise.all(amounts.map((amount, i) => refund(i % 2 ? b : a, amount)));
    expect(new Set(outcomes.map((o) => o.actionId)).size).toBe(60);

    for (const [i, outcome] of outcomes.entries()) {
      const tenant = i % 2 ? b : a;
      expect(outcome.state).toBe("pending");
      const action = await t.db.action.findUniqueOrThrow({
        where: { id: outcome.actionId },
        include: { revisions: true, snapshots: true },
      });
      expect(action.tenantId).toBe(tenant.id);
      expect(action.revisions).toHaveLength(1);
      const [revision] = action.revisions;
      expect(revision.args).toMatchObject({ amount_minor: amounts[i] });
      expect(revision.payloadHash).toBe(action.payloadHash);
      expect(outcome.state === "pending" && outcome.payloadHash).toBe(action.payloadHash);
      expect(action.snapshots).toHaveLength(1);
      expect(action.snapshots[0]).toMatchObject({ revisionId: revision.id, phase: "request", tenantId: tenant.id });
      const events = await t.db.auditEvent.findMany({ where: { actionId: action.id } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ tenantId: tenant.id, type: "action.proposed", subjectId: action.id, status: "pending" });
      expect(events[0].data).toMatchObject({ payloadHash: action.payloadHash, revision: 1 });
    }
    for (const tenant of [a, b]) {
      await sealAuditChain(t.db, tenant.id);
      expect(await verifyAuditChain(t.db, tenant.id)).toMatchObject({ ok: true });
    }
  });

  it("a proposal that cannot be written fails alone: the same tool call twice in one task, among others", async () => {
    const { taskId } = await startTask(t.db, {
      tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email },
      instruction: "Refund the overpayment on INV-1044", planner: "offline",
    });
    const taskLeaseOwner = await holdTask(t.db, taskId);
    const eventsBefore = await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.proposed" } });
    const settled = await Promise.allSettled([
      refund(a, 2_001, { taskId, taskLeaseOwner, agentCallId: "call-1" }),
      refund(a, 2_002, { taskId, taskLeaseOwner, agentCallId: "call-1" }),
      ...Array.from({ length: 8 }, (_, i) => refund(a, 2_100 + i)),
    ]);
    const [first, second, ...others] = settled;
    expect([first.status, second.status].sort()).toEqual(["fulfilled", "rejected"]);
    expect(others.every((s) => s.status === "fulfilled")).toBe(true);
    expect(await t.db.action.count({ where: { taskId, agentCallId: "call-1" } })).toBe(1);
    // Nothing of the refused one was written, its audit event neither.
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.proposed" } })).toBe(eventsBefore + 9);
  });

  it("a policy changed meanwhile sends only that tenant's proposals back to be assessed again", async () => {
    const c = await createTestTenant(t.db);
    const d = await createTestTenant(t.db);
    expect((await refund(c, 10_000)).state).toBe("pending"); // c's version 1 is now in hand
    expect((await refund(d, 10_000)).state).toBe("pending");
    const paused = {
      ...DEFAULT_POLICY, version: 2,
      tools: { ...DEFAULT_POLICY.tools, refund_invoice: { rules: [{ id: "refunds-paused", effect: "deny", tier: "critical", reason: "Refunds are paused." }] } },
    };
    await t.db.toolPolicy.create({ data: { tenantId: c.id, version: 2, document: paused as never } });
    const outcomes: ProposalOutcome[] = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refund(i % 2 ? d : c, 10_000 + i)),
    );
    outcomes.forEach((outcome, i) => expect(outcome.state).toBe(i % 2 ? "pending" : "denied"));
    const revisions = await t.db.actionRevision.findMany({ where: { actionId: { in: outcomes.map((o) => o.actionId) } } });
    for (const revision of revisions) expect(revision.policyVersion).toBe(revision.tenantId === c.id ? 2 : 1);
  });
});
