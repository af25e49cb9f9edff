import { describe, expect, it } from "vitest";
import { holdTask } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { startTask } from "@/lib/tasks/start-task";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const refundFor = (taskId: string, taskLeaseOwner: string, agentCallId: string) =>
  proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 2_500, reason: "Duplicate charge" },
    taskId, taskLeaseOwner, agentCallId, stepKey: `${taskId}:1`,
  });

describe("a task's proposals, from the worker that holds it", () => {
  it("refuses a proposal from a worker whose lease another took over, and a tool call the task already has an action for (naming that action): nothing is written twice", async () => {
    const { taskId } = await startTask(t.db, { tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email }, instruction: "Refund INV-1044", planner: "offline" });
    await holdTask(t.db, taskId, "worker-a");
    // Worker A's lease lapsed during a slow model turn and worker B took the task over.
    await holdTask(t.db, taskId, "worker-b");
    const events = () => t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.proposed" } });
    const before = await events();

    expect(await refusal(refundFor(taskId, "worker-a", "call_1"))).toMatchObject({ code: "task_lease_lost", status: 409 });
    expect(await t.db.action.count({ where: { taskId } })).toBe(0);

    const proposed = await refundFor(taskId, "worker-b", "call_1");
    expect(proposed.state).toBe("pending");
    // The same call again (a worker that read the task before the action existed): the action is named, not duplicated.
    const again = await refusal(refundFor(taskId, "worker-b", "call_1"));
    expect(again).toMatchObject({ code: "call_taken", details: { actionId: proposed.actionId } });
    expect(await t.db.action.count({ where: { taskId } })).toBe(1);
    expect(await events()).toBe(before + 1);
  });
});
