// Work whose cost grows with the input (pre-scan, risk tags, policy expressions and documents,
// payload hashing, revealing untrusted text) runs here on worker threads, each item within a
// budget of its own CPU time, `too_complex` past it (docs/DESIGN.md, "No input holds the request
// thread").
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { PriorityGate } from "@/lib/scheduling/priority-gate";
import { AppError } from "@/lib/errors";
import { readEnv } from "@/lib/env";
import { threadCpuMs } from "@/lib/compute/thread-cpu";
import { isUrgent } from "@/lib/scheduling/urgency";

/**
 * A pure function one domain runs on the pool: `module` (from the app's root) exports `fn`, and
 * `prepare`, when named, once per thread before the first call's budget starts. The pool knows no
 * domain: each declares its tasks with computeTask beside the code that calls them.
 */
export type ComputeTask<I, O> = { readonly module: string; readonly fn: string; readonly prepare?: string; readonly io?: (input: I) => O };

type TaskFn = (input: never) => unknown;

/** The task for `fn` of a module whose type is M (a `typeof import(...)`, type-only). */
export function computeTask<M, K extends keyof M & string>(
  module: string,
  fn: K,
  options: { prepare?: keyof M & string } = {},
): ComputeTask<Parameters<Extract<M[K], TaskFn>>[0], Awaited<ReturnType<Extract<M[K], TaskFn>>>> {
  return { module, fn, ...(options.prepare ? { prepare: options.prepare } : {}) };
}

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

type Pool = {
  piscina: Piscina;
  /**
   * Admits as many tasks as there are threads, urgent ones first, so tasks wait here, never in
   * piscina's first-in-first-out queue, where an approval would wait behind later proposals.
   */
  gate: PriorityGate;
  /** How many tasks of one priority may wait; more are refused as `busy`. */
  maxWaiting: number;
};

// One pool per process (kept across Next.js dev reloads of this module).
const holder = globalThis as typeof globalThis & { countersignComputePool?: Pool };

function pool(preload: readonly string[]): Pool {
  if (!holder.countersignComputePool) {
    const threads = computeThreads();
    // Resolved from the app's directory: under Next.js this module's own location is not a real path.
    const filename = path.join(process.cwd(), "lib", "compute", "compute-worker.mjs");
    if (!existsSync(filename)) {
      throw new Error(`${filename} is missing: start the console from its own directory (npm start, or next start run there).`);
    }
    const piscina = new Piscina({
      filename,
      // Threads load these task modules as they start, before any call waits on them.
      workerData: { root: process.cwd(), preload },
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      // Below the request thread in the scheduler (Linux nice is per thread), so a busy pool slows
      // other pages and /api/health as little as the CPU allows.
      niceIncrement: 10,
      // A hostile item may exhaust its own thread's heap, never the server's.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 8 },
    });
    holder.countersignComputePool = { piscina, gate: new PriorityGate(threads), maxWaiting: threads * 64 };
  }
  return holder.countersignComputePool;
}

/** Starts the pool's threads now, loading `tasks`' modules, so the first proposal does not wait. */
export function warmComputePool(tasks: readonly ComputeTask<never, unknown>[]): void {
  pool([...new Set(tasks.map((task) => task.module))]);
}

const tooComplex = (what: string, budgetMs: number) =>
  new AppError(
    "too_complex",
    `The ${what} needed more than its ${budgetMs} ms budget of CPU time to check, so it was refused. Send a smaller or simpler payload.`,
    422,
  );

/** A starved item is stopped after this many times its budget of wall-clock time (the budget itself where /proc cannot tell). */
const WALL_CLOCK_FACTOR = 10;
/** The shortest wait before looking at an item's CPU time again (/proc counts in 10 ms ticks). */
const MIN_RECHECK_MS = 20;

/** What the budget timer decides once it fires: stop the item, or look again after `recheckInMs`. */
export function budgetVerdict(input: { cpuUsedMs: number | null; wallMs: number; budgetMs: number }): { stop: true } | { stop: false; recheckInMs: number } {
  const { cpuUsedMs, wallMs, budgetMs } = input;
  if (cpuUsedMs === null || cpuUsedMs >= budgetMs || wallMs >= budgetMs * WALL_CLOCK_FACTOR) return { stop: true };
  return { stop: false, recheckInMs: Math.max(MIN_RECHECK_MS, Math.min(budgetMs - cpuUsedMs, budgetMs * WALL_CLOCK_FACTOR - wallMs)) };
}

const busy = () =>
  new AppError("busy", "The server is busy checking other large payloads; retry in a few seconds.", 503, { retryAfterSeconds: 5 });

/**
 * Runs one task on the pool within its CPU-time budget (`too_complex` past it; the thread is
 * replaced); `busy` after QUEUE_WAIT_MS waiting or past the queue's limit. Urgent by `opts.urgent`
 * or, by default, when called from `urgently` work; urgent tasks wait only behind urgent ones.
 */
export async function runCompute<I, O>(
  task: ComputeTask<I, O>,
  input: I,
  opts: { what: string; budgetMs?: number; urgent?: boolean },
): Promise<O> {
  const { piscina, gate, maxWaiting } = pool([task.module]);
  const urgent = opts.urgent ?? isUrgent();
  if (gate.waitingAhead(urgent) >= maxWaiting) throw busy();
  if (!gate.tryAcquire()) {
    await gate.acquire(urgent, AbortSignal.timeout(QUEUE_WAIT_MS))?.catch(() => {
      throw busy();
    });
  }
  try {
    return await runBudgeted(piscina, task, input, opts.budgetMs ?? computeBudgetMs(), opts.what);
  } finally {
    gate.release();
  }
}

async function runBudgeted<I, O>(piscina: Piscina, task: ComputeTask<I, O>, input: I, budgetMs: number, what: string): Promise<O> {
  // The worker flags the moment it starts (a thread replacing a stopped one may still be loading),
  // with its thread id and the CPU time it had used: the budget counts the task's CPU time only.
  const started = new Int32Array(new SharedArrayBuffer(12));
  const abort = new AbortController();
  let overBudget = false;
  let settled = false;
  let budgetTimer: NodeJS.Timeout | undefined;
  const onStart = () => {
    if (settled || Atomics.load(started, 0) !== 1) return;
    const startedAt = performance.now();
    const [, tid, cpuAtStart] = started;
    const check = () => {
      if (settled) return;
      const cpuNow = cpuAtStart >= 0 ? threadCpuMs(tid) : null;
      const verdict = budgetVerdict({ cpuUsedMs: cpuNow === null ? null : cpuNow - cpuAtStart, wallMs: performance.now() - startedAt, budgetMs });
      if (verdict.stop) {
        overBudget = true;
        abort.abort();
      } else {
        budgetTimer = setTimeout(check, verdict.recheckInMs);
      }
    };
    budgetTimer = setTimeout(check, budgetMs);
  };
  const wait = waitAsync(started, 0, 0);
  if (wait.async) void wait.value.then(onStart);
  else onStart();

  try {
    const { module, fn, prepare } = task;
    return (await piscina.run({ started, module, fn, prepare, input }, { name: "run", signal: abort.signal })) as O;
  } catch (error) {
    if (overBudget) throw tooComplex(what, budgetMs);
    throw error;
  } finally {
    settled = true;
    clearTimeout(budgetTimer);
    // A task that failed before it started never wakes the waiter: release it.
    if (Atomics.load(started, 0) === 0) {
      Atomics.store(started, 0, -1);
      Atomics.notify(started, 0);
    }
  }
}
