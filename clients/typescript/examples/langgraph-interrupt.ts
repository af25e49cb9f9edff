/**
 * LangGraph JS's human-in-the-loop pause (`interrupt()` in a node, `Command({ resume })`) with the
 * decision coming from a reviewer in the Countersign console.
 *
 *   npm install @langchain/langgraph @langchain/core @langchain/openai
 *   COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_API_KEY=cs_live_… OPENAI_API_KEY=sk-… \
 *     node --import tsx clients/typescript/examples/langgraph-interrupt.ts "Refund 250.00 on INV-1044: charged twice."
 *
 * (Any OpenAI-compatible chat-completions server works: set OPENAI_BASE_URL; OPENAI_MODEL picks the model.)
 *
 * The graph is the usual agent loop — a model node and a tools node — with Countersign's tools
 * node: it proposes each tool call; when a reviewer must decide, it pauses the graph with
 * `interrupt()`. `gate.resumeFor(...)` waits for the decisions and the graph resumes with them:
 * approved calls run through Countersign (once), the others reach the model with the reason.
 * Use a persistent checkpointer in production; the resumed node finds its actions again by
 * thread id and tool call id.
 */
import { randomUUID } from "node:crypto";
import { Command, END, INTERRUPT, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt, isInterrupted } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { Countersign } from "../src/countersign";
import { countersignForLangGraph } from "../src/langgraph";

const countersignUrl = process.env.COUNTERSIGN_URL ?? "http://localhost:3000";
const client = new Countersign({ baseUrl: countersignUrl, apiKey: process.env.COUNTERSIGN_API_KEY ?? "" });
const gate = countersignForLangGraph(client, {
  interrupt,
  onPending: ({ actionId, tool }) => console.log(`${tool} waits for a reviewer: ${countersignUrl}/actions/${actionId}`),
});

// Countersign validates the arguments against its own tool schema; these describe them to the model.
const model = new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini" }).bindTools([
  {
    type: "function",
    function: {
      name: "refund_invoice",
      description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
      parameters: {
        type: "object",
        properties: { invoice_number: { type: "string" }, amount_minor: { type: "integer" }, reason: { type: "string" } },
        required: ["invoice_number", "amount_minor", "reason"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "cancel_invoice",
      description: "Cancel an open invoice (irreversible: the customer no longer owes it). Give a reason.",
      parameters: {
        type: "object",
        properties: { invoice_number: { type: "string" }, reason: { type: "string" } },
        required: ["invoice_number", "reason"],
        additionalProperties: false,
      },
    },
  },
]);

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode("tools", gate.toolNode())
  .addEdge(START, "agent")
  .addConditionalEdges("agent", (state) => {
    const last = state.messages.at(-1);
    return last && "tool_calls" in last && Array.isArray(last.tool_calls) && last.tool_calls.length > 0 ? "tools" : END;
  })
  .addEdge("tools", "agent")
  .compile({ checkpointer: new MemorySaver() });

async function main() {
  const config = { configurable: { thread_id: randomUUID() } };
  const system = "Help with invoices. Use the tools. When a call is rejected or refused, tell the user why and do not retry it.";
  const prompt = process.argv[2] ?? "Refund 250.00 on invoice INV-1044: the customer was charged twice.";
  let result = await graph.invoke({ messages: [{ role: "system", content: system }, { role: "user", content: prompt }] }, config);
  while (isInterrupted(result)) {
    const resume = await gate.resumeFor(result[INTERRUPT]);
    for (const { countersign } of Object.values(resume)) {
      for (const verdict of Object.values(countersign)) console.log(verdict.approved ? "approved" : `not approved: ${verdict.message}`);
    }
    result = await graph.invoke(new Command({ resume }), config);
  }
  console.log(result.messages.at(-1)?.content);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
