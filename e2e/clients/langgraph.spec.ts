import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { invoiceEffects, proposedAction, runExample, theCall } from "@/e2e/clients/sdk-examples";
import { callToolThenAnswer, startFakeOpenAI, type FakeOpenAI } from "@/tests/fake-openai-server";

const PROMPT = "Refund 250.00 on invoice INV-1044: the customer was charged twice.";
const REFUND = { name: "refund_invoice", arguments: JSON.stringify({ invoice_number: "INV-1044", amount_minor: 25_000, reason: "Charged twice" }) };

test.describe("the LangGraph interrupt example against the real @langchain/langgraph and a local model server", () => {
  let model: FakeOpenAI | undefined;
  test.afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  test("the tools node pauses the graph with interrupt(), a reviewer approves in Countersign, Command({resume}) runs the refund once", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(REFUND));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("langgraph-interrupt.ts", PROMPT, { baseURL: baseURL!, agent, model });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      expect(action.tool).toBe("refund_invoice");
      expect((await invoiceEffects(agent.tenant.id, "INV-1044")).refunds).toBe(0);
      await decide(agent, action.id, action.payloadHash, "approve");

      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(stdout).toContain("approved");
      const call = theCall(model);
      expect(JSON.parse(call.output ?? "null")).toMatchObject({ invoice_number: "INV-1044", amount_minor: 25_000 });
      expect(stdout).toContain(`The tool answered: ${call.output}`);
      // LangGraph re-ran the tools node on resume; it found its action again instead of proposing another.
      expect(await e2eDb().action.count({ where: { tenantId: agent.tenant.id } })).toBe(1);
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(1);
      expect(await invoiceEffects(agent.tenant.id, "INV-1044")).toMatchObject({ refunded: 25_000, refunds: 1 });
    } finally {
      example.kill();
    }
  });

  test("a rejection resumes the graph with the reviewer's reason as the tool message the model reads; nothing is refunded", async ({ baseURL }) => {
    model = await startFakeOpenAI(callToolThenAnswer(REFUND));
    const agent = await seedAgent(["refund_invoice", "cancel_invoice"]);
    const example = runExample("langgraph-interrupt.ts", PROMPT, { baseURL: baseURL!, agent, model });
    try {
      const action = await proposedAction(example, agent.tenant.id);
      await decide(agent, action.id, action.payloadHash, "reject", "Already refunded by bank transfer on Monday");
      const { code, stdout, stderr } = await example.exit();
      expect(code, stderr).toBe(0);
      expect(theCall(model).output).toBe("A reviewer rejected this call: Already refunded by bank transfer on Monday");
      expect(stdout).toContain("The tool answered: A reviewer rejected this call: Already refunded by bank transfer on Monday");
      expect(await invoiceEffects(agent.tenant.id, "INV-1044")).toMatchObject({ refunded: 0, refunds: 0 });
      expect(await e2eDb().execution.count({ where: { actionId: action.id } })).toBe(0);
    } finally {
      example.kill();
    }
  });
});
