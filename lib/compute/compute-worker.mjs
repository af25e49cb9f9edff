// The compute pool's worker-thread entry (see compute-pool.ts). It loads the TypeScript tasks
// through tsx, as the project's scripts run, so the pool works the same under `next start`, the
// background worker and Vitest. Each task first flags that it has started, so the pool's time
// budget counts running time, not time spent waiting in the queue.
import { tsImport } from "tsx/esm/api";

const tasks = await tsImport("./compute-tasks.ts", import.meta.url);
const reviewTasks = await tsImport("./review-tasks.ts", import.meta.url);

function markStarted(started) {
  Atomics.store(started, 0, 1);
  Atomics.notify(started, 0);
}

export async function judgePayload({ started, input }) {
  markStarted(started);
  return tasks.judgePayload(input);
}

export async function hashRevision({ started, input }) {
  markStarted(started);
  return tasks.hashRevision(input);
}

export async function dryRunPolicy({ started, input }) {
  markStarted(started);
  return tasks.dryRunPolicy(input);
}

export async function diffRevision({ started, input }) {
  markStarted(started);
  return reviewTasks.diffRevision(input);
}

export async function compareStates({ started, input }) {
  markStarted(started);
  return reviewTasks.compareStates(input);
}
