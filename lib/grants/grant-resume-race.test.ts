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
const pause = (tenant: TestTenant) => setAgentsPause(t.db, { tenantId: tenant.id, paused: true, reason: "incident", actor: admin(tenant) });
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

  it("a grant vote behind a resume that waits for the task: the vote waits for the resume, then finds the agents running and makes the grant", async () => {
    const tenant = await createTestTenant(t.db);
    const call = await pendingTaskCall(tenant);
    await pause(tenant);
    const { resuming, voting } = await whileHolding(t.url, [[`SELECT 1 FROM "Task" WHERE id = $1 FOR NO KEY UPDATE`, [call.taskId]]], async (waiters) => {
      const resuming = settled(resume(tenant));
      await waiters(1); // the resume holds the tenant's row and waits to wake the task
      const voting = settled(grantVote(tenant, call));
      await waiters(2);
      return { resuming, voting };
    });
    const [resumed, voted] = [await resuming, await voting];
    expect([failureOf(resumed), failureOf(voted)]).toEqual([null, null]);
    // Recorded after the resume, the vote was judged after it: never "stopped" on a stale read.
    expect(voted).toMatchObject({ value: { status: "approved", grant: { id: expect.any(String) } } });
  });

  it("40 rounds of a grant vote racing a pause and its resume: neither fails; the grant follows the button at the vote's moment; the task is woken", async () => {
    const tenant = await createTestTenant(t.db);
    const eventId = async (type: string, actionId?: string) => (await t.db.auditEvent.findFirstOrThrow({
      where: { tenantId: tenant.id, type, ...(actionId ? { actionId } : {}) }, orderBy: { id: "desc" },
    })).id;
    const seen = { before: 0, during: 0, after: 0 };
    for (let round = 0; round < 40; round++) {
      const call = await pendingTaskCall(tenant);
      const before = await wakeSeqOf(call.taskId);
      // The vote starts a little later each round, so it meets the pause, the resume, or neither.
      const [voted, button] = await Promise.all([
        settled(new Promise((ok) => setTimeout(ok, (round % 8) * 4)).then(() => grantVote(tenant, call))),
        settled(pause(tenant).then(() => resume(tenant))),
      ]);
      expect([failureOf(voted), failureOf(button)]).toEqual([null, null]);
      expect(voted).toMatchObject({ value: { status: "approved" } });
      // The audit log's order is the order the tenant's row was held in.
      const [decided, paused, resumed] = [await eventId("decision.recorded", call.actionId), await eventId("tenant.agents_paused"), await eventId("tenant.agents_resumed")];
      const grant = await t.db.grant.findFirst({ where: { sourceActionId: call.actionId } });
      if (decided < paused) {
        seen.before++;
        expect(grant).toMatchObject({ status: "revoked" }); // made while running, ended by the pause
      } else if (decided < resumed) {
        seen.during++;
        expect(grant).toBeNull(); // the agents were stopped: the action is approved alone
      } else {
        seen.after++;
        expect(grant).toMatchObject({ status: "active", taskId: call.taskId });
      }
      expect(await wakeSeqOf(call.taskId)).toBe(before + 2);
    }
    expect(seen.before + seen.during + seen.after).toBe(40);
    console.info("grant vote against pause and resume, where the vote fell:", seen);
  });
});
