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

  test("the OpenAI Agents SDK wiring pauses on needsApproval, resumes with the console's decision and executes through Countersign", async ({ baseURL }) => {
    const agent = await seedAgent(["cancel_invoice"]);
    const args = { invoice_number: "INV-1046", reason: "Customer cancelled the order" };
    const client = node("agents", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_TOOL: "cancel_invoice", CS_TOOL_ARGS: JSON.stringify(args) });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      expect(action).toMatchObject({ tool: "cancel_invoice", status: "pending" });
      await decide(agent, action.id, action.payloadHash, "approve");
      const done = await client.next("done");
      expect(done).toMatchObject({ paused: true, decisions: ["approve"] });
      expect(JSON.parse(String(done.output))).toMatchObject({ state: "succeeded" });
      expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1046" } })).status).toBe("cancelled");
    } finally {
      client.kill();
    }
  });

  test("the Agents SDK wiring hands a rejection back to the model instead of running the tool", async ({ baseURL }) => {
    const agent = await seedAgent(["cancel_invoice"]);
    const args = { invoice_number: "INV-1047", reason: "Customer cancelled the order" };
    const client = node("agents", { CS_URL: baseURL!, CS_KEY: agent.secret, CS_TOOL: "cancel_invoice", CS_TOOL_ARGS: JSON.stringify(args) });
    try {
      const submitted = await client.next("submitted");
      const action = await e2eDb().action.findUniqueOrThrow({ where: { id: String(submitted.id) } });
      await decide(agent, action.id, action.payloadHash, "reject", "The customer still owes this");
      expect(await client.next("done")).toMatchObject({ paused: true, decisions: ["reject"], output: "Rejected by a reviewer: The customer still owes this" });
      expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1047" } })).status).toBe("open");
    } finally {
      client.kill();
    }
  });
});
