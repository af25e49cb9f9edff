import { describe, expect, it } from "vitest";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { refusal } from "@/tests/refusal";
import { driveUntilIdle } from "@/tests/task-driver";
import { settled, whileHolding } from "@/tests/action-lock";
import { setUpTestDatabase } from "@/tests/fixtures";
import type { ChatModel, ModelTurn } from "@/lib/agent/model";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction, type ProposeInput } from "@/lib/approvals/propose-action";
import { setAgentsPause } from "@/lib/agents-pause/set-agents-pause";
import { setApiKeyPause } from "@/lib/agents-pause/set-api-key-pause";
import { readAgentsPause } from "@/lib/agents-pause/read-agents-pause";
import { startTask } from "@/lib/tasks/start-task";
import { claimNextTask } from "@/lib/tasks/task-worker";
import { parseRunState } from "@/lib/tasks/run-state";

const t = setUpTestDatabase();

const adminOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });
const pause = (tenant: TestTenant, reason = "refunds misbehaving") => setAgentsPause(t.db, { tenantId: tenant.id, paused: true, reason, actor: adminOf(tenant) });
const resume = (tenant: TestTenant) => setAgentsPause(t.db, { tenantId: tenant.id, paused: false, actor: adminOf(tenant) });

async function agentKey(tenant: TestTenant, name: string) {
  const { apiKey } = await createApiKey(t.db, {
    tenantId: tenant.id, name, allowedTools: ["get_invoice", "refund_invoice", "send_email"], createdById: tenant.users.admin.id,
  });
  return { type: "api_key" as const, apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

const refund = { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" };
const propose = (tenant: TestTenant, requester: ProposeInput["requester"], tool = "refund_invoice", args: Record<string, unknown> = refund) =>
  proposeAction(t.db, { tenantId: tenant.id, requester, tool, args, reason: "Customer asked" });

async function approvedRefund(tenant: TestTenant, requester: ProposeInput["requester"]) {
  const proposed = await propose(tenant, requester);
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  await decideAction(t.db, {
    tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "approve", note: "ok", reviewer: tenant.users.reviewer.member,
  });
  return proposed;
}

const eventsOf = (tenant: TestTenant, type: string) => t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type }, orderBy: { id: "asc" } });

describe("the stop button: a tenant's agents", () => {
  it("refuses every new proposal while paused (423 agents_paused, audited, nothing written) and lets them through once resumed", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant, "billing-bot");
    const before = await t.db.action.count({ where: { tenantId: tenant.id } });

    const paused = await pause(tenant);
    expect(paused).toMatchObject({ paused: true, changed: true });
    expect(await readAgentsPause(t.db, tenant.id)).toMatchObject({ by: tenant.users.admin.email, reason: "refunds misbehaving" });

    for (const requester of [key, tenant.requester]) {
      const error = await refusal(propose(tenant, requester));
      expect(error).toMatchObject({ code: "agents_paused", status: 423 });
      expect(error.message).toMatch(/paused/);
    }
    // An allowed read is refused as well: nothing an agent asks for runs.
    expect(await refusal(propose(tenant, key, "get_invoice", { invoice_number: "INV-1042" }))).toMatchObject({ code: "agents_paused" });
    expect(await t.db.action.count({ where: { tenantId: tenant.id } })).toBe(before);
    const refused = await eventsOf(tenant, "action.refused");
    expect(refused.map((e) => (e.data as { code: string }).code)).toEqual(["agents_paused", "agents_paused", "agents_paused"]);

    expect(await resume(tenant)).toMatchObject({ paused: false, changed: true });
    expect(await readAgentsPause(t.db, tenant.id)).toBeNull();
    expect((await propose(tenant, key)).state).toBe("pending");
    expect(await eventsOf(tenant, "tenant.agents_paused")).toHaveLength(1);
    const resumed = await eventsOf(tenant, "tenant.agents_resumed");
    expect(resumed).toHaveLength(1);
    expect((resumed[0].data as { pausedSince: string }).pausedSince).toBe(paused.pausedAt?.toISOString());
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("keeps an approved action unexecuted while paused — the approval stays unused — and runs it once resumed", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant, "refunder");
    const proposed = await approvedRefund(tenant, key);
    await pause(tenant);

    const run = () => executeAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" }, actor: { type: "api_key", id: key.apiKeyId, label: key.label } });
    expect(await refusal(run())).toMatchObject({ code: "agents_paused", status: 423 });
    const held = await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } });
    expect(held).toMatchObject({ status: "approved", consumedAt: null });
    expect(await t.db.execution.count({ where: { actionId: proposed.actionId } })).toBe(0);
    const invoice = await t.db.invoice.findFirstOrThrow({ where: { tenantId: tenant.id, number: "INV-1044" } });
    expect(invoice.amountRefundedMinor).toBe(0);
    expect((await eventsOf(tenant, "execution.refused")).map((e) => e.status)).toEqual(["agents_paused"]);

    await resume(tenant);
    expect((await run()).state).toBe("succeeded");
    expect((await t.db.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).amountRefundedMinor).toBe(5_000);
  });

  it("of two admins pressing at once, one pause is recorded and audited", async () => {
    const tenant = await createTestTenant(t.db);
    const results = await Promise.all([pause(tenant, "first"), pause(tenant, "second"), pause(tenant, "third")]);
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.pausedAt?.getTime())).size).toBe(1);
    const events = await eventsOf(tenant, "tenant.agents_paused");
    expect(events).toHaveLength(1);
    expect((await readAgentsPause(t.db, tenant.id))?.reason).toBe((events[0].data as { reason: string }).reason);
    const resumes = await Promise.all([resume(tenant), resume(tenant)]);
    expect(resumes.filter((r) => r.changed)).toHaveLength(1);
    expect(await eventsOf(tenant, "tenant.agents_resumed")).toHaveLength(1);
  });

  it("holds only its own tenant", async () => {
    const [paused, other] = [await createTestTenant(t.db), await createTestTenant(t.db)];
    await pause(paused);
    expect((await propose(other, other.requester)).state).toBe("pending");
    expect(await refusal(propose(paused, paused.requester))).toMatchObject({ code: "agents_paused" });
  });
});

describe("the stop button: one API key", () => {
  it("refuses that key's proposals and holds its approved actions; other keys and members go on; another tenant's key is not found", async () => {
    const tenant = await createTestTenant(t.db);
    const [stopped, running] = [await agentKey(tenant, "stopped"), await agentKey(tenant, "running")];
    const approved = await approvedRefund(tenant, stopped);
    const paused = await setApiKeyPause(t.db, { tenantId: tenant.id, id: stopped.apiKeyId, paused: true, actor: adminOf(tenant) });
    expect(paused).toMatchObject({ changed: true });
    expect((await setApiKeyPause(t.db, { tenantId: tenant.id, id: stopped.apiKeyId, paused: true, actor: adminOf(tenant) })).changed).toBe(false);

    expect(await refusal(propose(tenant, stopped))).toMatchObject({ code: "agents_paused", status: 423 });
    expect((await propose(tenant, running)).state).toBe("pending");
    expect((await propose(tenant, tenant.requester)).state).toBe("pending");
    const run = () => executeAction(t.db, { tenantId: tenant.id, actionId: approved.actionId, payloadHash: approved.payloadHash, executor: { type: "requester" }, actor: { type: "api_key", id: stopped.apiKeyId, label: stopped.label } });
    expect(await refusal(run())).toMatchObject({ code: "agents_paused" });

    const other = await createTestTenant(t.db);
    expect(await refusal(setApiKeyPause(t.db, { tenantId: other.id, id: stopped.apiKeyId, paused: false, actor: adminOf(other) }))).toMatchObject({ code: "not_found" });
    expect(await refusal(setApiKeyPause(t.db, { tenantId: tenant.id, id: "not-a-uuid", paused: false, actor: adminOf(tenant) }))).toMatchObject({ code: "not_found" });

    await setApiKeyPause(t.db, { tenantId: tenant.id, id: stopped.apiKeyId, paused: false, actor: adminOf(tenant) });
    expect((await run()).state).toBe("succeeded");
    expect((await eventsOf(tenant, "api_key.paused")).length).toBe(1);
    expect((await eventsOf(tenant, "api_key.resumed")).length).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });
});

describe("the stop button: running tasks", () => {
  /** A model that reads an invoice, then reads it again, then answers; `during` runs inside turn `n`. */
  function scripted(during: Record<number, () => Promise<unknown>> = {}): ChatModel & { turns: number } {
    const turns: Array<Omit<ModelTurn, "provider" | "model">> = [
      { content: null, toolCalls: [{ id: "call-1", name: "get_invoice", argumentsText: '{"invoice_number":"INV-1042"}' }] },
      { content: null, toolCalls: [{ id: "call-2", name: "get_invoice", argumentsText: '{"invoice_number":"INV-1043"}' }] },
      { content: "Both invoices read.", toolCalls: [] },
    ];
    const model = {
      id: "offline",
      turns: 0,
      async complete(): Promise<ModelTurn> {
        const n = model.turns++;
        await during[n]?.();
        return { provider: "offline", model: "scripted", ...(turns[n] ?? { content: "done", toolCalls: [] }) };
      },
    };
    return model;
  }

  it("stops a running task before its next tool call, and goes on from there once resumed", async () => {
    const tenant = await createTestTenant(t.db);
    // The admin presses the button while the model is composing its second turn.
    const model = scripted({ 1: () => pause(tenant) });
    const { taskId } = await startTask(t.db, { tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Read INV-1042 and INV-1043", planner: "offline" });
    await driveUntilIdle(t.db, model);

    const stopped = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(stopped.status).toBe("running");
    const calls = (await t.db.action.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } })).map((a) => a.agentCallId);
    expect(calls).toEqual(["call-1"]); // the second call was never proposed
    // The refused call is not answered to the model: it is proposed after the resume instead.
    const messages = parseRunState(stopped.runState).messages;
    expect(messages.some((m) => m.role === "tool" && (m as { tool_call_id: string }).tool_call_id === "call-2")).toBe(false);
    // While paused, no worker picks the task up again.
    expect(await claimNextTask(t.db, "another-worker")).toBeNull();
    expect(model.turns).toBe(2);

    await resume(tenant);
    await driveUntilIdle(t.db, model);
    const done = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(done).toMatchObject({ status: "completed", finalAnswer: "Both invoices read." });
    expect((await t.db.action.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } })).map((a) => a.agentCallId)).toEqual(["call-1", "call-2"]);
    expect(model.turns).toBe(3);
  });

  it("does not start a queued task while paused", async () => {
    const tenant = await createTestTenant(t.db);
    await pause(tenant);
    const model = scripted();
    const { taskId } = await startTask(t.db, { tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Read INV-1042", planner: "offline" });
    await driveUntilIdle(t.db, model);
    expect(model.turns).toBe(0);
    expect((await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe("queued");
    await resume(tenant);
    await driveUntilIdle(t.db, model);
    expect((await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe("completed");
  });

  it("a resume waking a task that another transaction holds waits for it, also when that transaction then writes a row of the tenant (no deadlock)", async () => {
    const tenant = await createTestTenant(t.db);
    await pause(tenant);
    const { taskId } = await startTask(t.db, { tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Read INV-1042", planner: "offline" });
    const { resuming } = await whileHolding(t.url, [[`UPDATE "Task" SET "updatedAt" = now() WHERE id = $1`, [taskId]]], async (waiters, holder) => {
      const resuming = settled(resume(tenant));
      await waiters(1); // the resume holds the tenant's row and waits to wake the task
      // A row that references the tenant: its foreign-key check share-locks the tenant's key, which a
      // resume holding the tenant's row FOR UPDATE would block — each waiting for the other.
      await holder.query(`INSERT INTO "Task" (id, "tenantId", instruction, planner, "runState") VALUES (gen_random_uuid(), $1, 'Read INV-1043', 'offline', '{}')`, [tenant.id]);
      return { resuming }; // answered once the holder commits
    });
    expect(await resuming).toMatchObject({ status: "fulfilled", value: { paused: false, changed: true } });
    expect((await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).runnableAt).not.toBeNull();
  });
});

describe("the stop button pressed by someone who is no longer an admin", () => {
  it("neither pauses nor resumes the tenant's agents or a key (refused 403, audited); the pause stays as it was", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant, "watched");
    // The reviewer stands for an admin demoted after their request passed the boundary.
    const formerAdmin = { type: "user" as const, id: tenant.users.reviewer.id, label: tenant.users.reviewer.email };
    const forbiddenAgents = { code: "forbidden", status: 403, message: "Only admins may pause or resume agents, and you are no longer an admin here." };
    expect(await refusal(setAgentsPause(t.db, { tenantId: tenant.id, paused: true, reason: "x", actor: formerAdmin }))).toMatchObject(forbiddenAgents);
    expect(await readAgentsPause(t.db, tenant.id)).toBeNull();
    await pause(tenant);
    expect(await refusal(setAgentsPause(t.db, { tenantId: tenant.id, paused: false, actor: formerAdmin }))).toMatchObject(forbiddenAgents);
    expect(await readAgentsPause(t.db, tenant.id)).toMatchObject({ by: tenant.users.admin.email, reason: "refunds misbehaving" });
    expect((await eventsOf(tenant, "tenant.agents_pause_refused")).map((e) => ({ actorId: e.actorId, outcome: e.outcome, data: e.data }))).toEqual([
      { actorId: formerAdmin.id, outcome: "refused", data: { operation: "pause", reason: "not_admin" } },
      { actorId: formerAdmin.id, outcome: "refused", data: { operation: "resume", reason: "not_admin" } },
    ]);
    expect((await eventsOf(tenant, "tenant.agents_paused")).length).toBe(1);
    expect((await eventsOf(tenant, "tenant.agents_resumed")).length).toBe(0);

    const forbiddenKey = { code: "forbidden", status: 403, message: "Only admins may manage API keys, and you are no longer an admin here." };
    expect(await refusal(setApiKeyPause(t.db, { tenantId: tenant.id, id: key.apiKeyId, paused: true, actor: formerAdmin }))).toMatchObject(forbiddenKey);
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: key.apiKeyId } })).pausedAt).toBeNull();
    await setApiKeyPause(t.db, { tenantId: tenant.id, id: key.apiKeyId, paused: true, actor: adminOf(tenant) });
    expect(await refusal(setApiKeyPause(t.db, { tenantId: tenant.id, id: key.apiKeyId, paused: false, actor: formerAdmin }))).toMatchObject(forbiddenKey);
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: key.apiKeyId } })).pausedAt).toBeInstanceOf(Date);
    expect((await eventsOf(tenant, "api_key.refused")).map((e) => (e.data as { operation: string }).operation)).toEqual(["pause", "resume"]);
    expect((await eventsOf(tenant, "api_key.resumed")).length).toBe(0);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });
});
