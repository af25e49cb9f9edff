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

  test("the AutoGen GatedExecutor runs an approved block remotely and raises PermissionError on rejection", async ({ baseURL }) => {
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
      expect(await rejected.next("rejected")).toMatchObject({ type: "RejectedError", reason: "Printing is not needed" });
    } finally {
      approved.kill();
      rejected.kill();
    }
  });
});
