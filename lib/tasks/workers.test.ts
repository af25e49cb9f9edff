import { spawn } from "node:child_process";
import { getEventListeners } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/tests/db";
import { createTestTenant } from "@/tests/factories";
import { startFakeOpenAI, type FakeOpenAI } from "@/tests/fake-openai-server";
import { driveUntilIdle } from "@/tests/task-driver";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { ChatModel } from "@/lib/agent/model";
import { offlinePlanner } from "@/lib/agent/offline-planner";
import { createProviderModel, makeProvider } from "@/lib/agent/providers";
import { startTask } from "@/lib/tasks/start-task";
import { parseRunState } from "@/lib/tasks/run-state";
import { claimNextTask, runClaimedTask, runWorker } from "@/lib/tasks/task-worker";
import { releaseTask } from "@/lib/db/statements/tasks/release-task";
import { renewTaskLease } from "@/lib/db/statements/tasks/renew-task-lease";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const start = (instruction: string, planner = "offline") =>
  startTask(t.db, { tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email }, instruction, planner });

describe("the real OpenAI client path (a local chat-completions server)", () => {
  let fake: FakeOpenAI;
  afterAll(async () => fake?.close());

  it("tool calls go through the gate; malformed arguments go back to the model, never executed", async () => {
    fake = await startFakeOpenAI((_body, i) =>
      [
        { toolCalls: [{ id: "c1", name: "get_invoice", arguments: '{"invoice_number":"INV-1042","invoice_number":"INV-1043"}' }] },
        { toolCalls: [{ id: "c2", name: "get_invoice", arguments: '{"invoice_number":"INV-1042"}' }] },
        { content: "INV-1042 is open with 25,000.00 due." },
      ][i] ?? { content: "done" },
    );
    const model = createProviderModel([makeProvider({ name: "local", baseURL: fake.baseURL, model: "m", apiKey: "sk-local-test" })]);
    const { taskId } = await start("How much is due on INV-1042?", model.id);
    await driveUntilIdle(t.db, model);
    const task = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.status).toBe("completed");
    expect(task.finalAnswer).toContain("25,000.00");
    const actions = await t.db.action.findMany({ where: { taskId } });
    expect(actions.map((x) => x.agentCallId)).toEqual(["c2"]); // the duplicate-key call was never proposed
    const messages = parseRunState(task.runState).messages;
    const malformed = messages.find((m) => m.role === "tool" && (m as { tool_call_id: string }).tool_call_id === "c1");
    expect(String(malformed?.content)).toMatch(/more than once/i);
    // The second request to the model carried the error back, and the tool list came from the registry.
    const second = fake.requests[1].body as { messages: Array<{ role: string; content: string }>; tools: Array<{ function: { name: string } }> };
    expect(second.messages.some((m) => m.role === "tool" && /more than once/i.test(m.content))).toBe(true);
    expect(second.tools.map((x) => x.function.name)).toEqual(expect.arrayContaining(["get_invoice", "refund_invoice", "run_python"]));
  });

  it("all providers down: the run fails with a clear error that names no key", async () => {
    const down = await startFakeOpenAI([], { kind: "error", status: 503 });
    const model = createProviderModel(
      [makeProvider({ name: "primary", baseURL: down.baseURL, model: "m", apiKey: "sk-secret-primary" }),
       makeProvider({ name: "backup", baseURL: "http://127.0.0.1:9/v1", model: "m", apiKey: "sk-secret-backup" })],
      { maxRetries: 1, backoffMs: 1, timeoutMs: 2_000 },
    );
    const { taskId } = await start("How much is due on INV-1042?", model.id);
    await driveUntilIdle(t.db, model);
    const task = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.status).toBe("failed");
    expect(task.error).toMatch(/primary|backup/);
    expect(task.error).not.toMatch(/sk-secret/);
    await down.close();
  });
});

describe("workers", () => {
  it("a worker killed mid-run loses nothing: another completes the run exactly once after the lease lapses", async () => {
    const fake = await startFakeOpenAI([], { kind: "hang" });
    const { taskId } = await start("Send a payment reminder for INV-1042");
    const child = spawn(process.execPath, ["--import", "tsx", "tests/hanging-worker.ts", t.url, fake.baseURL], {
      cwd: process.cwd(),
      // A lease no machine's slowness lapses by chance (a 1.5 s one could lapse before the rescuer
      // looked, on a loaded machine); it is made to lapse below, as time would.
      env: { ...process.env, COUNTERSIGN_TASK_LEASE_MS: "600000" },
      stdio: "ignore",
    });
    // Wait until the doomed worker holds the task and is stuck in the model call (starting a tsx
    // process takes many seconds on a loaded 2-core machine).
    await expect.poll(() => fake.requests.length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect((await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).leaseOwner).toBe("doomed-worker");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await fake.close();

    // Not before the lease lapses…
    expect(await claimNextTask(t.db, "rescuer")).toBeNull();
    await t.db.task.update({ where: { id: taskId }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
    await driveUntilIdle(t.db, offlinePlanner, "rescuer");
    const [email] = await t.db.action.findMany({ where: { taskId, status: "pending" } });
    await (await import("@/lib/approvals/decide-action")).decideAction(t.db, {
      tenantId: a.id, actionId: email.id, verdict: "approve", payloadHash: email.payloadHash, reviewer: a.users.reviewer.member,
    });
    await driveUntilIdle(t.db, offlinePlanner, "rescuer");
    const task = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.status).toBe("completed");
    const actions = await t.db.action.findMany({ where: { taskId } });
    expect(actions.map((x) => x.tool).sort()).toEqual(["get_invoice", "lookup_customer", "send_email"]);
    expect(await t.db.emailOutbox.count({ where: { tenantId: a.id, actionId: email.id, toAddress: "billing@acme.example" } })).toBe(1);
  }, 120_000);

  it("two workers racing over many tasks never run the same step twice", async () => {
    const turns: string[] = [];
    const counting: ChatModel = {
      id: "offline",
      async complete(input) {
        // A step is identified by the task's instruction and how far its conversation has come.
        turns.push(`${String(input.messages[1]?.content)}#${input.messages.length}`);
        await new Promise((r) => setTimeout(r, 5));
        return offlinePlanner.complete(input);
      },
    };
    const ids = (await Promise.all(Array.from({ length: 8 }, (_, i) => start(`Send a payment reminder for INV-104${[2, 5, 6][i % 3]} (task ${i})`)))).map((x) => x.taskId);
    const worker = async (id: string) => {
      for (;;) {
        const task = await claimNextTask(t.db, id);
        if (!task) return;
        await runClaimedTask(t.db, task, counting);
      }
    };
    await Promise.all([worker("w1"), worker("w2")]);
    expect(turns.length).toBe(8 * 3);
    expect(new Set(turns).size).toBe(turns.length);
    for (const id of ids) {
      // Each run went as far as it can without a reviewer: two reads, then the email waits.
      const task = await t.db.task.findUniqueOrThrow({ where: { id } });
      expect(task.status).toBe("waiting_approval");
      const actions = await t.db.action.findMany({ where: { taskId: id }, orderBy: { createdAt: "asc" } });
      expect(actions.map((x) => x.tool)).toEqual(["get_invoice", "lookup_customer", "send_email"]);
    }
  });

  it("a lease is renewed and a task given back only by its holder; given back, it sleeps unless it can go on or was woken meanwhile", async () => {
    // A database of its own, so the only runnable task is this one.
    const own = await createTestDatabase();
    try {
      const b = await createTestTenant(own.db);
      const { taskId } = await startTask(own.db, {
        tenantId: b.id, requester: { userId: b.users.requester.id, label: b.users.requester.email }, instruction: "Send a payment reminder for INV-1042", planner: "offline",
      });
      const row = () => own.db.task.findUniqueOrThrow({ where: { id: taskId } });
      const claim = async () => {
        await own.db.task.update({ where: { id: taskId }, data: { runnableAt: new Date(0) } });
        const task = await claimNextTask(own.db, "holder", 60_000);
        if (!task) throw new Error("expected the task");
        return task;
      };
      const give = (task: { id: string; wakeSeq: number }, leaseOwner: string, keepRunnable: boolean) =>
        releaseTask(own.db, { taskId: task.id, leaseOwner, wakeSeq: task.wakeSeq, keepRunnable });

      let task = await claim();
      const leased = (await row()).leaseExpiresAt!;
      expect(await renewTaskLease(own.db, { taskId, leaseOwner: "someone-else", leaseSeconds: 600 })).toBe(false);
      expect((await row()).leaseExpiresAt).toEqual(leased);
      expect(await renewTaskLease(own.db, { taskId, leaseOwner: "holder", leaseSeconds: 600 })).toBe(true);
      expect((await row()).leaseExpiresAt!.getTime()).toBeGreaterThan(leased.getTime() + 500_000);

      await give(task, "someone-else", false);
      expect(await row()).toMatchObject({ leaseOwner: "holder", runnableAt: new Date(0) });
      await give(task, "holder", false);
      expect(await row()).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, runnableAt: null });

      task = await claim();
      await give(task, "holder", true);
      expect(await row()).toMatchObject({ leaseOwner: null, runnableAt: new Date(0) });

      task = await claim();
      // A decision woke the task while it was held.
      await own.db.task.update({ where: { id: taskId }, data: { wakeSeq: { increment: 1 } } });
      await give(task, "holder", false);
      expect(await row()).toMatchObject({ leaseOwner: null, runnableAt: new Date(0) });
    } finally {
      await own.drop();
    }
  });

  it("an idle worker polls without piling up listeners on its stop signal, and stops when told", async () => {
    const controller = new AbortController();
    const running = runWorker({ db: t.db, model: () => offlinePlanner, workerId: "idle", pollMs: 5, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 400));
    expect(getEventListeners(controller.signal, "abort").length).toBeLessThanOrEqual(1);
    controller.abort();
    await running;
  });
});
