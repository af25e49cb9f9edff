import { describe, expect, it } from "vitest";
import { holdTask } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { startTask } from "@/lib/tasks/start-task";
import { executedActionCounts } from "@/lib/tasks/executed-action-counts";

const t = setUpTestDatabase();
const tenant = setUpTestTenant(t);
const other = setUpTestTenant(t);

const requester = () => ({ userId: tenant.users.requester.id, label: tenant.users.requester.email });

describe("executedActionCounts", () => {
  it("counts only actions that reached execution: a task whose actions were rejected or never decided did nothing", async () => {
    const quiet = await startTask(t.db, { tenantId: tenant.id, requester: requester(), instruction: "Refund INV-1043 if it was paid twice", planner: "offline" });
    const busy = await startTask(t.db, { tenantId: tenant.id, requester: requester(), instruction: "Refund INV-1043 now", planner: "offline" });
    const propose = async (taskId: string) => {
      const outcome = await proposeAction(t.db, {
        tenantId: tenant.id, requester: tenant.requester, taskId, taskLeaseOwner: await holdTask(t.db, taskId), tool: "refund_invoice",
        args: { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Returned" }, reason: "Asked", stepKey: null,
      });
      if (outcome.state !== "pending") throw new Error(JSON.stringify(outcome));
      return outcome;
    };
    const rejected = await propose(quiet.taskId);
    await decideAction(t.db, { tenantId: tenant.id, actionId: rejected.actionId, verdict: "reject", note: "No", payloadHash: rejected.payloadHash, reviewer: tenant.users.reviewer.member });
    await propose(quiet.taskId); // still pending
    const ran = await propose(busy.taskId);
    await t.db.action.update({ where: { id: ran.actionId }, data: { status: "succeeded" } });

    const counts = await executedActionCounts(t.db, { tenantId: tenant.id, taskIds: [quiet.taskId, busy.taskId] });
    expect(counts.get(quiet.taskId) ?? 0).toBe(0);
    expect(counts.get(busy.taskId)).toBe(1);
    // Another tenant's view of the same ids counts nothing.
    expect((await executedActionCounts(t.db, { tenantId: other.id, taskIds: [busy.taskId] })).size).toBe(0);
    expect((await executedActionCounts(t.db, { tenantId: tenant.id, taskIds: [] })).size).toBe(0);
  });
});
