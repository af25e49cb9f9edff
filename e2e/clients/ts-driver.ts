/**
 * Drives the TypeScript client against the running app for e2e/clients/typescript-client.spec.ts.
 * Prints one JSON event per line. Modes: "client" (submit code, wait, execute, replay) and
 * "agents" (the OpenAI Agents SDK wiring from the example, with the SDK's run loop simulated).
 */
import { Countersign, RejectedError } from "../../clients/typescript/src/countersign";
import { countersignGate } from "../../clients/typescript/examples/openai-agents-needs-approval";

const emit = (event: Record<string, unknown>) => console.log(JSON.stringify(event));

async function main() {
  const [mode] = process.argv.slice(2);
  const client = new Countersign({ baseUrl: process.env.CS_URL!, apiKey: process.env.CS_KEY! });

  if (mode === "agents") {
    const gate = countersignGate(client, { decisionTimeoutMs: 60_000, onPending: (id) => emit({ event: "submitted", id }) });
    const input = JSON.parse(process.env.CS_TOOL_ARGS!) as Record<string, unknown>;
    const tool = process.env.CS_TOOL!;
    const paused = await gate.needsApproval(tool)(null, input);
    const decisions: string[] = [];
    const item = { rawItem: { name: tool, arguments: JSON.stringify(input) } };
    await gate.resolveInterruptions({
      interruptions: paused ? [item] : [],
      state: { approve: () => decisions.push("approve"), reject: () => decisions.push("reject") },
    });
    // The SDK calls execute only for approved calls; for rejected ones the gate answers with the reason.
    const output = await gate.execute(tool)(input);
    emit({ event: "done", paused, decisions, output });
    return;
  }

  const submission = await client.submitCode(process.env.CS_CODE!, { reason: "e2e: typescript client" });
  emit({ event: "submitted", id: submission.id, state: submission.state });
  try {
    const decision = await client.waitForDecision(submission.id, { timeoutMs: 60_000, pollSeconds: 5 });
    const streamed: string[] = [];
    const result = await client.execute(submission.id, { payloadHash: decision.payloadHash, onOutput: (_s, text) => streamed.push(text) });
    emit({ event: "executed", ...result, streamed });
    const again = await client.execute(submission.id);
    emit({ event: "replayed", replayed: again.replayed, stdout: again.stdout, sameExecution: again.executionId === result.executionId });
  } catch (error) {
    if (!(error instanceof RejectedError)) throw error;
    emit({ event: "rejected", reason: error.reason, code: error.code, name: error.name });
  }
}

main().catch((error: unknown) => {
  emit({ event: "crashed", message: error instanceof Error ? error.message : String(error), code: (error as { code?: string }).code ?? null });
  process.exit(1);
});
