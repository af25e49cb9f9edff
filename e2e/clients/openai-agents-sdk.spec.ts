import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { invoiceEffects, proposedAction, runExample, theCall } from "@/e2e/clients/sdk-examples";
import { callToolThenAnswer, startFakeOpenAI, type FakeOpenAI } from "@/tests/fake-openai-server";

const PROMPT = "Refund 250.00 on invoice INV-1044: the customer was charged twice.";
const REFUND = { name: "refund_invoice", arguments: JSON.stringify({ invoice_number: "INV-1044", amount_minor: 25_000, reason: "Charged twice" }) };
const CANCEL = { name: "cancel_invoice", arguments: JSON.stringify({ invoice_number: "INV-1046", reason: "Customer cancelled the order" }) };

const stateFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), "cs-agents-")), "run-state.json");

async function refundsOf(tenantId: string, number: string) {
  const { refunded, refunds } = await invoiceEffects(tenantId, number);
  return { refunded, refunds };
}

test.describe("the OpenAI Agents SDK example against the real @openai/agents and a local model server", () => {
  let model: FakeOpenAI | undefined;
  test.afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  test("pauses on the interruption, a reviewer approves in Countersign, the run resumes and the refund happens once", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(REFUND));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const file = stateFile();
    const example = runExample("openai-agents-needs-approval.ts", PROMPT, { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: file } });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      expect(action).toMatchObject({ tool: "refund_invoice", status: "pending" });
      expect(await refundsOf(agent.tenant.id, "INV-1044")).toEqual({ refunded: 0, refunds: 0 });
      await decide(agent, action.id, action.payloadHash, "approve");

      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(stdout).toContain("refund_invoice: approved");
      const call = theCall(model);
      expect(JSON.parse(call.output ?? "null")).toMatchObject({ invoice_number: "INV-1044", amount_minor: 25_000 });
      expect(stdout).toContain(`The tool answered: ${call.output}`);
      expect(await refundsOf(agent.tenant.id, "INV-1044")).toEqual({ refunded: 25_000, refunds: 1 });
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
      expect(await e2eDb().action.count({ where: { tenantId: agent.tenant.id } })).toBe(1);
      expect(existsSync(file)).toBe(false); // the finished run's saved state is gone
    } finally {
      example.kill();
    }
  });

  test("stopped while it waits and started again, it resumes from the serialised RunState: the same action, no duplicate, the effect once", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(REFUND));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const file = stateFile();
    const first = runExample("openai-agents-needs-approval.ts", PROMPT, { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: file } });
    let action;
    try {
      action = await proposedAction(first, agent.tenant.id);
      // The run is saved (RunState.toString) before it waits for the reviewer; then the process goes away.
      await expect.poll(() => existsSync(file) && readFileSync(file, "utf8").includes("refund_invoice")).toBe(true);
    } finally {
      first.kill();
    }
    await first.exit();

    const second = runExample("openai-agents-needs-approval.ts", PROMPT, { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: file } });
    try {
      await second.printed(/Resuming the run saved in/);
      // The resumed process finds the action it proposed before (keyed by the SDK's callId).
      expect((await proposedAction(second, agent.tenant.id)).id).toBe(action.id);
      await decide(agent, action.id, action.payloadHash, "approve");
      const { code, stderr } = await second.exit();
      expect(code, stderr).toBe(0);

      expect(await e2eDb().action.count({ where: { tenantId: agent.tenant.id } })).toBe(1);
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
      expect(await refundsOf(agent.tenant.id, "INV-1044")).toEqual({ refunded: 25_000, refunds: 1 });
      // One model call before the pause, one after the resume: the model was not asked to call the tool again.
      expect(model.requests).toHaveLength(2);
      expect(JSON.parse(theCall(model).output ?? "null")).toMatchObject({ invoice_number: "INV-1044", amount_minor: 25_000 });
    } finally {
      second.kill();
    }
  });

  test("a rejection reaches the model with the reviewer's reason, nothing is refunded, and the run finishes", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(REFUND));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("openai-agents-needs-approval.ts", PROMPT, { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: stateFile() } });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      await decide(agent, action.id, action.payloadHash, "reject", "Already refunded by bank transfer on Monday");
      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(theCall(model).output).toBe("A reviewer rejected this call: Already refunded by bank transfer on Monday");
      expect(stdout).toContain("The tool answered: A reviewer rejected this call: Already refunded by bank transfer on Monday");
      expect(await refundsOf(agent.tenant.id, "INV-1044")).toEqual({ refunded: 0, refunds: 0 });
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(0);
    } finally {
      example.kill();
    }
  });

  test("an action cancelled while it waits reaches the model as a refusal with the reason; the run goes on", async ({ baseURL, request }) => {
    model = await startFakeOpenAI(callToolThenAnswer(CANCEL));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("openai-agents-needs-approval.ts", "Cancel INV-1046.", { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: stateFile() } });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      const cancelled = await request.post(`/api/v1/actions/${action.id}/cancel`, { headers: agent.headers, data: { reason: "The customer paid after all" } });
      expect(cancelled.status(), await cancelled.text()).toBe(200);
      const { code, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      const output = theCall(model).output ?? "";
      expect(output).toMatch(/^Not run: the action was cancelled\./);
      expect(output).toContain("The customer paid after all");
      expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1046" } })).status).toBe("open");
    } finally {
      example.kill();
    }
  });

  test("an approval window that closes before anyone decides reaches the model as a refusal; the run goes on", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(CANCEL));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("openai-agents-needs-approval.ts", "Cancel INV-1046.", { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: stateFile() } });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      await e2eDb().action.update({ where: { id: action.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const { code, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(theCall(model).output).toBe("Not run: the approval expired before a reviewer decided. The approval window closed before a decision.");
      expect((await invoiceEffects(agent.tenant.id, "INV-1046")).status).toBe("open");
    } finally {
      example.kill();
    }
  });

  test("a refusal at execution reaches the model in Countersign's words, not the SDK's generic error (the invoice changed since review)", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(CANCEL));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const file = stateFile();
    const first = runExample("openai-agents-needs-approval.ts", "Cancel INV-1046.", { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: file } });
    let action;
    try {
      action = await proposedAction(first, agent.tenant.id);
      await expect.poll(() => existsSync(file) && readFileSync(file, "utf8").includes("cancel_invoice")).toBe(true);
    } finally {
      first.kill();
    }
    await first.exit();
    // The reviewer approves the invoice as it was requested (a vote on changed state is refused
    // outright); it changes after the approval, before the agent's resumed run executes it.
    await decide(agent, action.id, action.payloadHash, "approve");
    await e2eDb().invoice.updateMany({ where: { tenantId: agent.tenant.id, number: "INV-1046" }, data: { amountDueMinor: 1, version: { increment: 1 } } });
    const example = runExample("openai-agents-needs-approval.ts", "Cancel INV-1046.", { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: file } });
    try {
      await example.printed(/Resuming the run saved in/);
      const { code, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      const output = theCall(model).output ?? "";
      expect(output).toMatch(/^Countersign did not run this call \(state_changed\): The state this approval rested on changed since review/);
      expect(output).not.toContain("An error occurred while running the tool");
      expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1046" } })).status).toBe("open");
    } finally {
      example.kill();
    }
  });

  test("a call the policy denies does not pause the run: the model reads the policy's reason", async ({ baseURL }) => {
    const tooLarge = { name: "refund_invoice", arguments: JSON.stringify({ invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Goodwill" }) };
    model = await startFakeOpenAI(callToolThenAnswer(tooLarge));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("openai-agents-needs-approval.ts", "Refund 60,000.00 on INV-1044.", { baseURL: baseURL!, agent, model, env: { RUN_STATE_FILE: stateFile() } });
    try {
      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(stdout).not.toContain("waits for a reviewer");
      expect(theCall(model).output).toMatch(/^Countersign's policy refused this call: Refunds above 50,000.00/);
      expect(await refundsOf(agent.tenant.id, "INV-1044")).toEqual({ refunded: 0, refunds: 0 });
    } finally {
      example.kill();
    }
  });
});
