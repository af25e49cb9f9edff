/**
 * Drives the TypeScript client against the running app for e2e/clients/typescript-client.spec.ts.
 * Prints one JSON event per line. Modes: "client" (submit code, wait, execute, replay), "timeout"
 * (code that runs past the sandbox's limit), "concurrent" (a second execute while the first runs)
 * and "idempotent" (submissions with an Idempotency-Key).
 */
import { Countersign, CountersignError, RejectedError } from "../../clients/typescript/src/countersign";

const emit = (event: Record<string, unknown>) => console.log(JSON.stringify(event));

async function main() {
  const [mode] = process.argv.slice(2);
  const client = new Countersign({ baseUrl: process.env.CS_URL!, apiKey: process.env.CS_KEY! });

  if (mode === "idempotent") {
    const args = JSON.parse(process.env.CS_TOOL_ARGS!) as Record<string, unknown>;
    const key = `e2e-${crypto.randomUUID()}`;
    const first = await client.submitTool(process.env.CS_TOOL!, args, { idempotencyKey: key });
    // The same call again, its keys in another order: the same action.
    const again = await client.submitTool(process.env.CS_TOOL!, Object.fromEntries(Object.entries(args).reverse()), { idempotencyKey: key });
    let conflict: Record<string, unknown> | null = null;
    try {
      await client.submitTool(process.env.CS_TOOL!, { ...args, reason: `${String(args.reason)} (changed)` }, { idempotencyKey: key });
    } catch (error) {
      if (!(error instanceof CountersignError)) throw error;
      conflict = { code: error.code, status: error.status, message: error.message };
    }
    emit({ event: "submitted", first: first.id, again: again.id, state: again.state, conflict });
    return;
  }

  const submission = await client.submitCode(process.env.CS_CODE!, { reason: `e2e: typescript client (${mode})` });
  emit({ event: "submitted", id: submission.id, state: submission.state });
  try {
    const decision = await client.waitForDecision(submission.id, { timeoutMs: 60_000, pollSeconds: 5 });
    if (mode === "concurrent") return await concurrent(client, submission.id);
    const streamed: string[] = [];
    const result = await client.execute(submission.id, { payloadHash: decision.payloadHash, onOutput: (_s, text) => streamed.push(text) });
    emit({ event: "executed", ...result, streamed });
    const again = await client.execute(submission.id);
    emit({ event: "replayed", replayed: again.replayed, stdout: again.stdout, timedOut: again.timedOut, reason: again.reason, sameExecution: again.executionId === result.executionId });
  } catch (error) {
    if (!(error instanceof RejectedError)) throw error;
    emit({ event: "rejected", reason: error.reason, code: error.code, name: error.name });
  }
}

/**
 * Starts the execution; once its first line arrives (it is running), a second client executes the
 * same approval. The second must wait for the first to finish and answer its recorded result.
 */
async function concurrent(client: Countersign, id: string) {
  const requests: string[] = [];
  const second = new Countersign({
    baseUrl: process.env.CS_URL!,
    apiKey: process.env.CS_KEY!,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const first = client.execute(id, { idempotencyKey: "e2e-first", onOutput: () => started() });
  await running;
  const waited = await second.execute(id, { idempotencyKey: "e2e-second" });
  const ran = await first;
  emit({
    event: "concurrent",
    first: { state: ran.state, stdout: ran.stdout, executionId: ran.executionId, replayed: ran.replayed },
    second: { state: waited.state, stdout: waited.stdout, executionId: waited.executionId, replayed: waited.replayed },
    // The second client saw the run in progress: it polled the action before its final answer.
    polled: requests.some((r) => r === `GET /api/v1/actions/${id}`),
    requests,
  });
}

main().catch((error: unknown) => {
  emit({ event: "crashed", message: error instanceof Error ? error.message : String(error), code: (error as { code?: string }).code ?? null });
  process.exit(1);
});
