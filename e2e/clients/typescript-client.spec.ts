import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { CODE, decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { ClientProcess } from "@/e2e/clients/client-process";

const node = (mode: string, env: Record<string, string>) => new ClientProcess(process.execPath, ["--import", "tsx", "e2e/clients/ts-driver.ts", mode], env);

test.describe("TypeScript client against the running app", () => {
  test("submits code, a reviewer approves, the sandbox output streams back; a second execute replays", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const client = node("client", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: CODE });
    try {
      const submitted = await client.next("submitted");
      expect(submitted.state).toBe("pending");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "approve");
      const executed = await client.next("executed");
      expect(executed).toMatchObject({ state: "succeeded", exitCode: 0, stdout: 'stale: logs-2019\n{"checked": 2}\n', replayed: false });
      expect((executed.streamed as string[]).join("")).toBe(executed.stdout);
      expect(await client.next("replayed")).toMatchObject({ replayed: true, stdout: executed.stdout, sameExecution: true });
      expect((await client.exit()).code).toBe(0);
    } finally {
      client.kill();
    }
  });

  test("a rejection throws RejectedError with the reviewer's reason", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const client = node("client", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: CODE });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "reject", "Not during the freeze");
      expect(await client.next("rejected")).toEqual({ event: "rejected", reason: "Not during the freeze", code: "rejected", name: "RejectedError" });
    } finally {
      client.kill();
    }
  });

  test("code that runs past the sandbox's time limit is reported as timed out with its reason, live and on replay", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const client = node("client", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: "while True:\n    pass\n" });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "approve");
      const executed = await client.next("executed", 45_000);
      expect(executed).toMatchObject({ state: "failed", timedOut: true, exitCode: null, replayed: false });
      expect(String(executed.reason)).toMatch(/time limit/);
      expect(await client.next("replayed")).toMatchObject({ replayed: true, timedOut: true, reason: executed.reason, sameExecution: true });
    } finally {
      client.kill();
    }
  });

  test("a second execute while the first still runs waits for it and answers its recorded result (one run)", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const code = 'import time\nprint("started", flush=True)\ntime.sleep(3)\nprint("done", flush=True)\n';
    const client = node("concurrent", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: code });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "approve");
      const result = await client.next("concurrent", 45_000);
      expect(result.first).toMatchObject({ state: "succeeded", stdout: "started\ndone\n", replayed: false });
      expect(result.second).toMatchObject({ state: "succeeded", stdout: "started\ndone\n", replayed: true, executionId: (result.first as { executionId: string }).executionId });
      expect(result.polled).toBe(true);
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
    } finally {
      client.kill();
    }
  });

  test("submit with an Idempotency-Key: the same call answers the same action, another payload under the key is refused", async ({ baseURL }) => {
    const agent = await seedAgent(["cancel_invoice"]);
    const args = { invoice_number: "INV-1046", reason: "Customer cancelled the order" };
    const client = node("idempotent", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_TOOL: "cancel_invoice", CS_TOOL_ARGS: JSON.stringify(args) });
    try {
      const submitted = await client.next("submitted");
      expect(submitted.again).toBe(submitted.first);
      expect(submitted.state).toBe("pending");
      expect(submitted.conflict).toMatchObject({ status: 409 });
      expect(await e2eDb().action.count({ where: { tenantId: agent.tenant.id } })).toBe(1);
    } finally {
      client.kill();
    }
  });
});
