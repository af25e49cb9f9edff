import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createTestTenant, holdTask, type TestTenant } from "@/tests/factories";
import { settled, whileHolding } from "@/tests/action-lock";
import { decideAction } from "@/lib/approvals/decide-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { setAgentsPause } from "@/lib/agents-pause/set-agents-pause";
import type { GrantTerms } from "@/lib/grants/grant-terms";
import { startTask } from "@/lib/tasks/start-task";

// A grant vote on a task's action locks the tenant's row and wakes the task; a resume of the stop
// button locks the tenant's row and wakes the tenant's tasks. Both take the tenant first
// (docs/DESIGN.md, "Standing grants"): a vote holding the task while it waited for the tenant
// would deadlock with the resume in the first test below.

const t = setUpTestDatabase();

const PARTNER: GrantTerms = {
  constraint: 'emailDomains(args).all(d, d == "partner.example")', description: "every recipient at partner.example",
  maxCalls: 10, totalArgument: null, maxTotal: null, ttlSeconds: 3600,
};

const admin = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });
const resume = (tenant: TestTenant) => setAgentsPause(t.db, { tenantId: tenant.id, paused: false, actor: admin(tenant) });

/** A task's call waiting for review (an email outside the tenant's domains), with its task. */
async function pendingTaskCall(tenant: TestTenant) {
  const { taskId } = await startTask(t.db, {
    tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Send the weekly report", planner: "offline",
  });
  const proposed = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "send_email", args: { to: "ops@partner.example", subject: "Weekly report", body: "Attached." },
    taskId, taskLeaseOwner: await holdTask(t.db, taskId), agentCallId: "call-1",
  });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  return { taskId, actionId: proposed.actionId, payloadHash: proposed.payloadHash };
}

const grantVote = (tenant: TestTenant, call: { actionId: string; payloadHash: string }) => decideAction(t.db, {
  tenantId: tenant.id, actionId: call.actionId, verdict: "approve", payloadHash: call.payloadHash, reviewer: tenant.users.reviewer.member, grant: PARTNER,
});

/** Why an act failed (its error's text), or null when it went through. */
const failureOf = (outcome: PromiseSettledResult<unknown>) => (outcome.status === "rejected" ? String(outcome.reason) : null);

const wakeSeqOf = async (taskId: string) => (await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).wakeSeq;

// A pause under way (its row lock held by another connection), as the stop button's statement writes it.
const PAUSING = `UPDATE "Tenant" SET "agentsPausedAt" = date_trunc('milliseconds', now()), "agentsPausedById" = $2, "agentsPausedReason" = 'incident' WHERE id = $1`;

describe("a grant vote on a task's action and a resume of the stop button at once", () => {
  it("queued in that order behind a pause under way, both go through: the resume wakes the task, then the vote finds the agents running and makes the grant", async () => {
    const tenant = await createTestTenant(t.db);
    const call = await pendingTaskCall(tenant);
    const before = await wakeSeqOf(call.taskId);
    const { resuming, voting } = await whileHolding(t.url, [[PAUSING, [tenant.id, admin(tenant).id]]], async (waiters) => {
      const resuming = settled(resume(tenant));
      await waiters(1); // the resume waits for the tenant's row
      // The vote reads the agents running (the pause is not committed) and waits for the tenant's
      // row too: behind the resume, which then wakes the task.
      const voting = settled(grantVote(tenant, call));
      await waiters(2);
      return { resuming, voting };
    });
    const [resumed, voted] = [await resuming, await voting];
    expect([failureOf(resumed), failureOf(voted)]).toEqual([null, null]); // e.g. "deadlock detected"
    expect(resumed).toMatchObject({ value: { paused: false, changed: true } });
    expect(voted).toMatchObject({ value: { status: "approved", grant: { id: expect.any(String) } } });
    expect(await t.db.grant.findMany({ where: { sourceActionId: call.actionId } })).toMatchObject([{ status: "active", taskId: call.taskId }]);
    // Woken twice: by the resume and by the decision.
    expect(await wakeSeqOf(call.taskId)).toBe(before + 2);
  });
});
