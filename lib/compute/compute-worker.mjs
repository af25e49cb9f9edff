// The compute pool's worker-thread entry: a call names the module and function to run (a domain's
// computeTask), loaded through tsx so the pool works alike under `next start`, the worker and
// Vitest. Each call first reports its thread id and CPU time used, so its budget counts its own.
import path from "node:path";
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { selfThreadCpuMs, selfThreadId } = await tsImport("./thread-cpu.ts", import.meta.url);
const threadId = selfThreadId();
const root = workerData?.root ?? process.cwd();
const modules = new Map();
const prepared = new Set();

function load(module) {
  let loading = modules.get(module);
  if (!loading) {
    loading = tsImport(path.join(root, module), import.meta.url);
    modules.set(module, loading);
  }
  return loading;
}

// The modules known when the pool started, loaded before the first call needs them.
await Promise.all((workerData?.preload ?? []).map(load));

/** started: [flag, thread id (0: unknown), CPU ms used by this thread before the task (-1: unknown)]. */
function markStarted(started) {
  started[1] = threadId;
  started[2] = selfThreadCpuMs() ?? -1;
  Atomics.store(started, 0, 1);
  Atomics.notify(started, 0);
}

export async function run({ started, module, fn, prepare, input }) {
  const tasks = await load(module);
  if (prepare && !prepared.has(`${module}#${prepare}`)) {
    await tasks[prepare]();
    prepared.add(`${module}#${prepare}`);
  }
  markStarted(started);
  return tasks[fn](input);
}
