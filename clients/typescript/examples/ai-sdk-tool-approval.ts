/**
 * The Vercel AI SDK's tool approval (`toolApproval`, `tool-approval-request` /
 * `tool-approval-response`) with the approval coming from a reviewer in the Countersign console.
 *
 *   npm install ai @ai-sdk/openai
 *   COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_API_KEY=cs_live_… OPENAI_API_KEY=sk-… \
 *     node --import tsx clients/typescript/examples/ai-sdk-tool-approval.ts "Cancel INV-1046: the customer cancelled the order."
 *
 * (Any OpenAI-compatible chat-completions server works: set OPENAI_BASE_URL; OPENAI_MODEL picks the model.)
 *
 * 1. `toolApproval: gate.toolApproval` proposes each call to Countersign, keyed by the SDK's
 *    `toolCallId`. Pending → the SDK stops with a `tool-approval-request`; denied by policy → the
 *    model reads the reason; allowed → it already ran, no pause.
 * 2. `gate.approvalResponses(content)` waits for the reviewer and answers each request: approved,
 *    or denied with the reviewer's reason (which the model reads).
 * 3. On the next call the SDK runs the approved tool's `execute`, which executes the action
 *    through Countersign — once.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from "ai";
import { Countersign } from "../src/countersign";
import { countersignForAiSdk } from "../src/ai-sdk";

const countersignUrl = process.env.COUNTERSIGN_URL ?? "http://localhost:3000";
const client = new Countersign({ baseUrl: countersignUrl, apiKey: process.env.COUNTERSIGN_API_KEY ?? "" });
const gate = countersignForAiSdk(client, {
  onPending: ({ actionId, tool: name }) => console.log(`${name} waits for a reviewer: ${countersignUrl}/actions/${actionId}`),
});

// Countersign validates the arguments against its own tool schema; these describe them to the model.
const tools = {
  cancel_invoice: tool({
    description: "Cancel an open invoice (irreversible: the customer no longer owes it). Give a reason.",
    inputSchema: jsonSchema<{ invoice_number: string; reason: string }>({
      type: "object",
      properties: { invoice_number: { type: "string" }, reason: { type: "string" } },
      required: ["invoice_number", "reason"],
      additionalProperties: false,
    }),
    execute: gate.execute("cancel_invoice"),
  }),
  refund_invoice: tool({
    description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
    inputSchema: jsonSchema<{ invoice_number: string; amount_minor: number; reason: string }>({
      type: "object",
      properties: { invoice_number: { type: "string" }, amount_minor: { type: "integer" }, reason: { type: "string" } },
      required: ["invoice_number", "amount_minor", "reason"],
      additionalProperties: false,
    }),
    execute: gate.execute("refund_invoice"),
  }),
};

const model = createOpenAI().chat(process.env.OPENAI_MODEL ?? "gpt-4.1-mini");
const system = "Help with invoices. Use the tools. When a call is rejected or refused, tell the user why and do not retry it.";

async function main() {
  const messages: ModelMessage[] = [{ role: "user", content: process.argv[2] ?? "Cancel INV-1046: the customer cancelled the order." }];
  for (;;) {
    const result = streamText({ model, system, tools, messages, toolApproval: gate.toolApproval, stopWhen: stepCountIs(5) });
    for await (const text of result.textStream) process.stdout.write(text);
    messages.push(...(await result.response).messages);
    const responses = await gate.approvalResponses(await result.content);
    if (responses.length === 0) break;
    for (const response of responses) console.log(response.approved ? "approved" : `not approved: ${response.reason}`);
    messages.push({ role: "tool", content: responses });
  }
  process.stdout.write("\n");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
