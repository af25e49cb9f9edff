import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { invoiceEffects, proposedAction, runExample, theCall } from "@/e2e/clients/sdk-examples";
import { callToolThenAnswer, startFakeOpenAI, type FakeOpenAI } from "@/tests/fake-openai-server";

const PROMPT = "Cancel INV-1046: the customer cancelled the order.";
const CANCEL = { name: "cancel_invoice", arguments: JSON.stringify({ invoice_number: "INV-1046", reason: "Customer cancelled the order" }) };

test.describe("the Vercel AI SDK tool-approval example against the real `ai` 7 and a local model server (streamed chat completions)", () => {
  let model: FakeOpenAI | undefined;
  test.afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  test("the call stops at a tool-approval-request, a reviewer approves in Countersign, the next call executes it through Countersign once", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(CANCEL));
    const agent = await seedAgent(["cancel_invoice", "refund_invoice"]);
    const example = runExample("ai-sdk-tool-approval.ts", PROMPT, { baseURL: baseURL!, agent, model });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      expect(action.tool).toBe("cancel_invoice");
      expect((await invoiceEffects(agent.tenant.id, "INV-1046")).status).toBe("open");
      await decide(agent, action.id, action.payloadHash, "approve");

      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(stdout).toContain("approved");
      const call = theCall(model);
      expect(JSON.parse(call.output ?? "null")).toMatchObject({ invoice_number: "INV-1046", status: "cancelled" });
      expect(stdout).toContain(`The tool answered: ${call.output}`);
      expect((await invoiceEffects(agent.tenant.id, "INV-1046")).status).toBe("cancelled");
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
      expect(await e2eDb().action.count({ where: { tenantId: agent.tenant.id } })).toBe(1);
      // The SDK streamed every model call (streamText over chat completions).
      expect(model.requests.map((r) => [r.api, r.stream])).toEqual([["chat", true], ["chat", true]]);
    } finally {
      example.kill();
    }
  });

  test("a rejection is the tool-approval-response's denial: the model reads the reviewer's reason, nothing is cancelled", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(CANCEL));
    const agent = await seedAgent(["cancel_invoice", "refund_invoice"]);
    const example = runExample("ai-sdk-tool-approval.ts", PROMPT, { baseURL: baseURL!, agent, model });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      await decide(agent, action.id, action.payloadHash, "reject", "The order shipped yesterday; refund it instead");
      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(theCall(model).output).toBe("A reviewer rejected this call: The order shipped yesterday; refund it instead");
      expect(stdout).toContain("The tool answered: A reviewer rejected this call: The order shipped yesterday; refund it instead");
      expect((await invoiceEffects(agent.tenant.id, "INV-1046")).status).toBe("open");
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(0);
    } finally {
      example.kill();
    }
  });
});
