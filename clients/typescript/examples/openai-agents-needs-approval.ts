/**
 * Wiring Countersign into the OpenAI Agents SDK's human-in-the-loop flow, so the approval comes
 * from a reviewer in the Countersign console instead of a terminal prompt.
 *
 *   npm install @openai/agents
 *   COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_API_KEY=cs_live_… OPENAI_API_KEY=… \
 *     node --import tsx clients/typescript/examples/openai-agents-needs-approval.ts
 *
 * How it fits the SDK's flow:
 * 1. `needsApproval(ctx, input)` submits the call to Countersign. The policy answers at once:
 *    `allowed` (it already ran; no pause), `denied` (no pause; the tool returns the refusal to the
 *    model), or `pending` → returns true and the SDK pauses the run with an interruption.
 * 2. For each interruption, `resolveInterruptions` long-polls Countersign for the reviewer's
 *    decision and calls `state.approve(item)` or `state.reject(item)` (the reason is kept for the
 *    model).
 * 3. On resume, the tool's `execute` runs the approved action through Countersign — once, with the
 *    approved hash — so the effect happens behind the gate, not in this process.
 *
 * The SDK is not a dependency of this repository, so it is loaded at run time and described here
 * by the few shapes this file uses.
 */
import { Countersign, RejectedError, type Submission } from "../src/countersign";

/** The parts of @openai/agents this example touches. */
type ToolApprovalItem = { rawItem: { name: string; arguments?: string; callId?: string } };
type RunState = { approve(item: ToolApprovalItem): void; reject(item: ToolApprovalItem): void };
type RunResult = { interruptions?: ToolApprovalItem[]; state: RunState; finalOutput?: unknown };
type ToolConfig = {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict?: boolean;
  needsApproval: (ctx: unknown, input: Record<string, unknown>) => Promise<boolean>;
  execute: (input: Record<string, unknown>) => Promise<string>;
};
type AgentsSdk = {
  Agent: new (config: { name: string; instructions: string; tools: unknown[] }) => unknown;
  tool: (config: ToolConfig) => unknown;
  run: (agent: unknown, input: string | RunState) => Promise<RunResult>;
};

const keyOf = (tool: string, input: unknown) => `${tool}:${JSON.stringify(input)}`;

/**
 * One Countersign action per tool call, shared by `needsApproval`, the interruption loop and
 * `execute` (keyed by tool name and arguments, so the same call maps to the same action).
 */
export function countersignGate(client: Countersign, options: { decisionTimeoutMs?: number; onPending?: (id: string, tool: string) => void } = {}) {
  const submissions = new Map<string, Submission>();
  const rejections = new Map<string, string>();
  const approvedHashes = new Map<string, string>();

  async function submit(tool: string, input: Record<string, unknown>): Promise<Submission> {
    const key = keyOf(tool, input);
    let submission = submissions.get(key);
    if (!submission) {
      submission = await client.submitTool(tool, input, { reason: `The agent called ${tool}` });
      submissions.set(key, submission);
      if (submission.state === "pending") options.onPending?.(submission.id, tool);
    }
    return submission;
  }

  return {
    /** For the SDK's `needsApproval`: pause only when Countersign says a reviewer must decide. */
    needsApproval(tool: string) {
      return async (_ctx: unknown, input: Record<string, unknown>) => (await submit(tool, input)).state === "pending";
    },

    /** For the SDK's `execute`: run through Countersign, or report why it did not run. */
    execute(tool: string) {
      return async (input: Record<string, unknown>): Promise<string> => {
        const submission = await submit(tool, input);
        if (submission.state === "denied") return `Refused by policy: ${submission.reason}`;
        if (submission.state === "allowed") return JSON.stringify(submission.execution.result);
        const rejected = rejections.get(submission.id);
        if (rejected) return `Rejected by a reviewer: ${rejected}`;
        const result = await client.execute(submission.id, {
          idempotencyKey: `agents-${submission.id}`,
          payloadHash: approvedHashes.get(submission.id),
        });
        return JSON.stringify({ state: result.state, result: result.result ?? { stdout: result.stdout, stderr: result.stderr } });
      };
    },

    /** Answers the run's interruptions with the reviewers' decisions from the console. */
    async resolveInterruptions(result: RunResult): Promise<void> {
      for (const item of result.interruptions ?? []) {
        const input = JSON.parse(item.rawItem.arguments ?? "{}") as Record<string, unknown>;
        const submission = await submit(item.rawItem.name, input);
        if (submission.state !== "pending") {
          result.state.approve(item);
          continue;
        }
        try {
          const decision = await client.waitForDecision(submission.id, { timeoutMs: options.decisionTimeoutMs ?? 900_000 });
          approvedHashes.set(submission.id, decision.payloadHash);
          result.state.approve(item);
        } catch (error) {
          if (!(error instanceof RejectedError)) throw error;
          rejections.set(submission.id, error.reason);
          result.state.reject(item);
        }
      }
    },
  };
}

async function main() {
  const client = new Countersign({ baseUrl: process.env.COUNTERSIGN_URL ?? "http://localhost:3000", apiKey: process.env.COUNTERSIGN_API_KEY ?? "" });
  const gate = countersignGate(client, { onPending: (id, tool) => console.log(`${tool} waits for a reviewer: ${process.env.COUNTERSIGN_URL}/actions/${id}`) });
  const sdkModule = "@openai/agents";
  const { Agent, tool, run } = (await import(sdkModule)) as AgentsSdk;

  const refundInvoice = tool({
    name: "refund_invoice",
    description: "Refund part of an invoice (amount in minor units).",
    parameters: {
      type: "object",
      properties: { invoice_number: { type: "string" }, amount_minor: { type: "integer" }, reason: { type: "string" } },
      required: ["invoice_number", "amount_minor", "reason"],
      additionalProperties: false,
    },
    strict: true,
    needsApproval: gate.needsApproval("refund_invoice"),
    execute: gate.execute("refund_invoice"),
  });
  const agent = new Agent({ name: "Billing assistant", instructions: "Help with invoices. Use the tools.", tools: [refundInvoice] });

  let result = await run(agent, "Refund 250.00 on invoice INV-1044: the customer was charged twice.");
  while (result.interruptions?.length) {
    await gate.resolveInterruptions(result);
    result = await run(agent, result.state);
  }
  console.log(result.finalOutput);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
