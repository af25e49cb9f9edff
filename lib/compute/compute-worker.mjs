// The compute pool's worker-thread entry (see compute-pool.ts). It loads the TypeScript tasks
// through tsx, as the project's scripts run, so the pool works the same under `next start`, the
// background worker and Vitest. Each task first flags that it has started, with this thread's id
// and the CPU time it had used so far, so the pool's budget counts the task's own CPU time: not
// time spent waiting in the queue, nor time the machine gave to other work.
import { tsImport } from "tsx/esm/api";

const tasks = await tsImport("./compute-tasks.ts", import.meta.url);
const reviewTasks = await tsImport("./review-tasks.ts", import.meta.url);
const { selfThreadCpuMs, selfThreadId } = await tsImport("./thread-cpu.ts", import.meta.url);
const threadId = selfThreadId();

/** started: [flag, thread id (0: unknown), CPU ms used by this thread before the task (-1: unknown)]. */
function markStarted(started) {
  started[1] = threadId;
  started[2] = selfThreadCpuMs() ?? -1;
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

export async function replayRecordedPolicy({ started, input }) {
  // The tool registry, loaded once per thread: not counted against the first replay's budget.
  await tasks.loadReplay();
  markStarted(started);
  return tasks.replayRecordedPolicy(input);
}

export async function checkPolicy({ started, input }) {
  markStarted(started);
  return tasks.checkPolicy(input);
}

export async function datasetFiles({ started, input }) {
  markStarted(started);
  return tasks.datasetFiles(input);
}

export async function diffRevision({ started, input }) {
  markStarted(started);
  return reviewTasks.diffRevision(input);
}

export async function compareStates({ started, input }) {
  markStarted(started);
  return reviewTasks.compareStates(input);
}

export async function revealTexts({ started, input }) {
  markStarted(started);
  return reviewTasks.revealTexts(input);
}

export async function resultTexts({ started, input }) {
  markStarted(started);
  return reviewTasks.resultTexts(input);
}

export async function checkUpstreamArgs({ started, input }) {
  markStarted(started);
  return tasks.checkUpstreamArgs(input);
}
