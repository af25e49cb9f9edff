import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { CODE, decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { ClientProcess } from "@/e2e/clients/client-process";

const DRIVER = "e2e/clients/python_driver.py";

test.describe("Python client against the running app", () => {
  test("submits code, a reviewer approves, the sandbox output comes back; a second execute replays", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const client = new ClientProcess("python3", [DRIVER, "client"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: CODE });
    try {
      const submitted = await client.next("submitted");
      expect(submitted).toMatchObject({ state: "pending", payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      expect(action).toMatchObject({ tenantId: agent.tenant.id, status: "pending", requesterLabel: `api:${agent.name}` });
      await decide(agent, action.id, action.payloadHash, "approve");

      const executed = await client.next("executed");
      expect(executed).toMatchObject({ state: "succeeded", exitCode: 0, stdout: 'stale: logs-2019\n{"checked": 2}\n', replayed: false });
      expect(executed.isolation).toMatch(/^(container|namespace)$/);
      expect((executed.streamed as string[][]).map(([, text]) => text).join("")).toBe(executed.stdout);
      expect(await client.next("replayed")).toMatchObject({ replayed: true, stdout: executed.stdout, executionId: true });
      expect((await client.exit()).code).toBe(0);
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
    } finally {
      client.kill();
    }
  });

  test("a rejection raises RejectedError carrying the reviewer's reason", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const client = new ClientProcess("python3", [DRIVER, "client"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: CODE });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "reject", "Use the staging dataset, not production");
      expect(await client.next("rejected")).toEqual({ event: "rejected", reason: "Use the staging dataset, not production", code: "rejected" });
      expect((await client.exit()).code).toBe(0);
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(0);
    } finally {
      client.kill();
    }
  });

  test("a run the sandbox stops at its time limit comes back timed out, with the reason", async ({ baseURL }) => {
    test.setTimeout(90_000);
    const agent = await seedAgent(["run_python"]);
    const client = new ClientProcess("python3", [DRIVER, "client"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: 'import time\nprint("started", flush=True)\ntime.sleep(120)\n' });
    try {
      const submitted = await client.next("submitted");
      await decide(agent, String(submitted.id), String(submitted.payloadHash), "approve");
      const executed = await client.next("executed", 60_000);
      expect(executed).toMatchObject({ state: "failed", timedOut: true, stdout: "started\n", reason: expect.stringMatching(/^Timed out: the sandbox stopped the code at its time limit after \d+ ms\.$/) });
      expect(await client.next("replayed")).toMatchObject({ replayed: true });
    } finally {
      client.kill();
    }
  });

  test("the AutoGen GatedExecutor runs an approved block remotely; a rejection and a pre-scan denial come back as failed results with the reason", async ({ baseURL }) => {
    const agent = await seedAgent(["run_python"]);
    const approved = new ClientProcess("python3", [DRIVER, "gated"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: 'print("from the sandbox")' });
    const rejected = new ClientProcess("python3", [DRIVER, "gated"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: 'print("never")' });
    try {
      for (const [client, verdict] of [[approved, "approve"], [rejected, "reject"]] as const) {
        const submitted = await client.next("submitted");
        const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
        await decide(agent, action.id, action.payloadHash, verdict, verdict === "reject" ? "Printing is not needed" : undefined);
      }
      expect(await approved.next("executed")).toEqual({ event: "executed", exitCode: 0, output: "from the sandbox\n" });
      // What the assistant sees: a failed run whose output is the reviewer's reason — the chat goes on.
      expect(await rejected.next("executed")).toEqual({
        event: "executed", exitCode: 1, output: "A reviewer rejected this code block; it was not run. The reviewer's reason: Printing is not needed\n",
      });
    } finally {
      approved.kill();
      rejected.kill();
    }
    const blocked = new ClientProcess("python3", [DRIVER, "gated"], { CS_URL: baseURL!, CS_KEY: agent.secret, CS_CODE: "import os\nprint(os.getcwd())\n" });
    try {
      const result = await blocked.next("executed");
      expect(result).toMatchObject({ exitCode: 1, output: expect.stringContaining("Countersign denied this code block before review; it was not run.") });
      expect(result.output).toContain('imports banned module "os"');
      expect((await blocked.exit()).code).toBe(0);
    } finally {
      blocked.kill();
    }
    expect(await e2eDb().execution.count({ where: { action: { tenantId: agent.tenant.id } } })).toBe(1);
  });
});
