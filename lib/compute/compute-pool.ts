// Work whose cost grows with the input (the code pre-scan, risk tagging, canonical hashing of a
// payload) runs here, in a pool of worker threads, so one large or hostile request never holds
// the request thread: every other request, page and /api/health keeps being answered meanwhile.
// Each item gets a time budget of running time (not queue time); one that exceeds it is stopped
// (its thread is terminated and replaced) and refused as `too_complex`.
import { availableParallelism } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import type { RevisionPayload } from "@/lib/approvals/action-revision";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import type { InspectInput, Inspection } from "@/lib/compute/compute-tasks";
import { AppError } from "@/lib/errors";
import { readEnv } from "@/lib/env";

type Tasks = {
  inspectPayload: { input: InspectInput; output: Inspection };
  hashRevision: { input: RevisionPayload; output: PayloadHash };
};

// In Node since 16; TypeScript declares it only from lib "es2024" on.
type WaitAsync = (view: Int32Array, index: number, value: number) => { async: true; value: Promise<string> } | { async: false; value: string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** How long an item may wait for a free thread before the request is refused as `busy`. */
const QUEUE_WAIT_MS = 15_000;

export function computeThreads(): number {
  return readEnv("COUNTERSIGN_COMPUTE_THREADS") ?? Math.max(2, Math.min(4, availableParallelism() - 1));
}

export function computeBudgetMs(): number {
  return readEnv("COUNTERSIGN_COMPUTE_BUDGET_MS") ?? 2_000;
}

// One pool per process (kept across Next.js dev reloads of this module).
const holder = globalThis as typeof globalThis & { countersignComputePool?: Piscina };

function pool(): Piscina {
  if (!holder.countersignComputePool) {
    const threads = computeThreads();
    holder.countersignComputePool = new Piscina({
      // Resolved from the app's directory: under Next.js this module's own location is not a real path.
      filename: path.join(process.cwd(), "lib", "compute", "compute-worker.mjs"),
      minThreads: threads,
      maxThreads: threads,
      maxQueue: threads * 64,
      idleTimeout: 60_000,
      // Below the request thread in the scheduler (Linux nice is per thread), so a busy pool slows
      // other pages and /api/health as little as the CPU allows.
      niceIncrement: 10,
      // A hostile item may exhaust its own thread's heap, never the server's.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 8 },
    });
  }
  return holder.countersignComputePool;
}

/** Starts the pool's threads now (they load the parser), so the first proposal does not wait. */
export function warmComputePool(): void {
  pool();
}

export const tooComplex = (what: string, budgetMs: number) =>
  new AppError(
    "too_complex",
    `The ${what} took longer than its ${budgetMs} ms budget to check, so it was refused. Send a smaller or simpler payload.`,
    422,
  );

const busy = () =>
  new AppError("busy", "The server is busy checking other large payloads; retry in a few seconds.", 503, { retryAfterSeconds: 5 });

/**
 * Runs one task on the pool. Its budget starts when a thread picks it up; past the budget the
 * thread is terminated and the call throws `too_complex`. Waiting longer than QUEUE_WAIT_MS for a
 * thread, or a full queue, throws `busy`. Nothing is written by the tasks themselves, so a refused
 * item leaves nothing behind.
 */
export async function runCompute<K extends keyof Tasks>(
  name: K,
  input: Tasks[K]["input"],
  opts: { what: string; budgetMs?: number },
): Promise<Tasks[K]["output"]> {
  const budgetMs = opts.budgetMs ?? computeBudgetMs();
  const started = new Int32Array(new SharedArrayBuffer(4));
  const abort = new AbortController();
  let outcome: "budget" | "queue" | null = null;
  const queueTimer = setTimeout(() => {
    if (Atomics.load(started, 0) === 0) {
      outcome = "queue";
      abort.abort();
    }
  }, QUEUE_WAIT_MS);
  let budgetTimer: NodeJS.Timeout | undefined;
  const wait = waitAsync(started, 0, 0);
  let settled = false;
  const onStart = () => {
    if (settled || Atomics.load(started, 0) !== 1) return;
    clearTimeout(queueTimer);
    budgetTimer = setTimeout(() => {
      outcome = "budget";
      abort.abort();
    }, budgetMs);
  };
  if (wait.async) void wait.value.then(onStart);
  else onStart();

  try {
    return (await pool().run({ started, input }, { name, signal: abort.signal })) as Tasks[K]["output"];
  } catch (error) {
    if (outcome === "budget") throw tooComplex(opts.what, budgetMs);
    if (outcome === "queue" || isQueueFull(error)) throw busy();
    throw error;
  } finally {
    settled = true;
    clearTimeout(queueTimer);
    clearTimeout(budgetTimer);
    // A task refused before it started never wakes the waiter: release it.
    if (Atomics.load(started, 0) === 0) {
      Atomics.store(started, 0, -1);
      Atomics.notify(started, 0);
    }
  }
}

function isQueueFull(error: unknown): boolean {
  return error instanceof Error && /queue is at limit/i.test(error.message);
}
