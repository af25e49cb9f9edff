/**
 * The OpenAI Agents SDK's human-in-the-loop flow with the approval coming from a reviewer in the
 * Countersign console instead of a terminal prompt.
 *
 *   npm install @openai/agents
 *   COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_API_KEY=cs_live_… OPENAI_API_KEY=sk-… \
 *     node --import tsx clients/typescript/examples/openai-agents-needs-approval.ts "Refund 250.00 on INV-1044: charged twice."
 *
 * (Any OpenAI-compatible server works: set OPENAI_BASE_URL, and OPENAI_AGENTS_DISABLE_TRACING=1
 * when it is not OpenAI's.)
 *
 * How it fits the SDK's flow:
 * 1. `needsApproval` proposes the call to Countersign, keyed by the SDK's `callId`. The policy
 *    answers at once: allowed (it already ran; no pause), denied (no pause; the model reads the
 *    policy's reason), or pending → the SDK pauses the run with an interruption.
 * 2. The paused run is saved to RUN_STATE_FILE (`state.toString()`), so the process can stop while
 *    the reviewers take their time: started again, it resumes from the file
 *    (`RunState.fromString`) and finds the same Countersign action — nothing is proposed twice.
 * 3. `resolveInterruptions` waits for the decision: approved → `state.approve(item)`; rejected,
 *    expired, cancelled or invalidated → `state.reject(item, { message })`, so the model reads the
 *    reviewer's reason and the run goes on.
 * 4. On resume, `execute` runs the approved action through Countersign — once — so the effect
 *    happens behind the gate, not in this process. Countersign's refusals reach the model in its
 *    own words (`errorFunction`).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, RunState, run, tool } from "@openai/agents";
import { Countersign } from "../src/countersign";
import { countersignForAgents } from "../src/openai-agents";

const countersignUrl = process.env.COUNTERSIGN_URL ?? "http://localhost:3000";
const stateFile = process.env.RUN_STATE_FILE ?? "openai-agents-run-state.json";

const client = new Countersign({ baseUrl: countersignUrl, apiKey: process.env.COUNTERSIGN_API_KEY ?? "" });
const gate = countersignForAgents(client, {
  onPending: ({ actionId, tool: name }) => console.log(`${name} waits for a reviewer: ${countersignUrl}/actions/${actionId}`),
});

// Countersign validates the arguments against its own tool schema; these describe them to the model.
const refundInvoice = tool({
  name: "refund_invoice",
  description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
  parameters: {
    type: "object",
    properties: { invoice_number: { type: "string" }, amount_minor: { type: "integer" }, reason: { type: "string" } },
    required: ["invoice_number", "amount_minor", "reason"],
    additionalProperties: false,
  },
  strict: true,
  ...gate.tool("refund_invoice"),
});

const cancelInvoice = tool({
  name: "cancel_invoice",
  description: "Cancel an open invoice (irreversible: the customer no longer owes it). Give a reason.",
  parameters: {
    type: "object",
    properties: { invoice_number: { type: "string" }, reason: { type: "string" } },
    required: ["invoice_number", "reason"],
    additionalProperties: false,
  },
  strict: true,
  ...gate.tool("cancel_invoice"),
});

const agent = new Agent({
  name: "Billing assistant",
  instructions: "Help with invoices. Use the tools. When a call is rejected or refused, tell the user why and do not retry it.",
  tools: [refundInvoice, cancelInvoice],
});

async function main() {
  const prompt = process.argv[2] ?? "Refund 250.00 on invoice INV-1044: the customer was charged twice.";
  let state: RunState<undefined, typeof agent>;
  if (existsSync(stateFile)) {
    console.log(`Resuming the run saved in ${stateFile}.`);
    state = await RunState.fromString<undefined, typeof agent>(agent, readFileSync(stateFile, "utf8"));
  } else {
    const first = await run(agent, prompt);
    if (first.interruptions.length === 0) return console.log(first.finalOutput);
    state = first.state;
  }
  for (;;) {
    // Saved before waiting: a reviewer may take hours, and this process may not live that long.
    writeFileSync(stateFile, state.toString());
    for (const resolution of await gate.resolveInterruptions(state)) {
      console.log(`${resolution.tool}: ${resolution.approved ? "approved" : resolution.message}`);
    }
    const result = await run(agent, state);
    if (result.interruptions.length === 0) {
      rmSync(stateFile, { force: true });
      return console.log(result.finalOutput);
    }
    state = result.state;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
