import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Db } from "@/lib/db/client";
import type { ChatModel } from "@/lib/agent/model";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { auditUpkeep } from "@/lib/audit/audit-upkeep";
import { recoverStaleExecutions } from "@/lib/approvals/recover-executions";
import { advanceTask, type StepResult } from "@/lib/tasks/advance-task";
import { claimRunnableTask } from "@/lib/db/statements/tasks/claim-runnable-task";
import { releaseTask } from "@/lib/db/statements/tasks/release-task";
import { renewTaskLease } from "@/lib/db/statements/tasks/renew-task-lease";
import { readEnv } from "@/lib/env";

export const TASK_LEASE_MS = readEnv("COUNTERSIGN_TASK_LEASE_MS") ?? 60_000;

export function newWorkerId(): string {
  return `worker:${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export type ClaimedTask = { id: string; tenantId: string; leaseOwner: string; wakeSeq: number };

/**
 * Claims one runnable task whose lease is free or lapsed, leased by the database clock. Any number
 * of workers on any number of machines share one database without ever claiming the same task.
 */
export async function claimNextTask(db: Db, workerId: string, leaseMs = TASK_LEASE_MS): Promise<ClaimedTask | null> {
  const row = await claimRunnableTask(db, { workerId, leaseSeconds: leaseMs / 1000 });
  return row ? { ...row, leaseOwner: workerId } : null;
}

/** Drives one claimed task until it waits for reviewers, finishes, or loses its lease. */
export async function runClaimedTask(db: Db, task: ClaimedTask, model: ChatModel, options: { leaseMs?: number; signal?: AbortSignal } = {}): Promise<StepResult> {
  const leaseMs = options.leaseMs ?? TASK_LEASE_MS;
  let result: StepResult = "continue";
  try {
    while (result === "continue" && !options.signal?.aborted) {
      result = await advanceTask(db, task, model, options.signal);
      if (result === "continue" && !(await renewTaskLease(db, { taskId: task.id, leaseOwner: task.leaseOwner, leaseSeconds: leaseMs / 1000 }))) {
        result = "lease_lost";
      }
    }
  } finally {
    // Given back: runnable again if it can go on (or was woken meanwhile), else asleep until a decision.
    if (result !== "lease_lost") {
      await releaseTask(db, { taskId: task.id, leaseOwner: task.leaseOwner, wakeSeq: task.wakeSeq, keepRunnable: result === "continue" || result === "paused" });
    }
  }
  return result;
}

export type WorkerOptions = {
  db: Db;
  model: () => ChatModel;
  workerId?: string;
  pollMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
};

/**
 * A worker: claims runnable tasks, sweeps expired approvals and recovers crashed executions.
 * Runs until the signal aborts. The start command runs one in-process; `npm run worker` runs more.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const workerId = options.workerId ?? newWorkerId();
  const pollMs = options.pollMs ?? readEnv("COUNTERSIGN_WORKER_POLL_MS") ?? 1000;
  const log = options.log ?? (() => {});
  let lastSweep = 0;
  // Sleeps until the next poll or until the worker is stopped; the abort listener goes away
  // with each sleep (one per poll would pile up on a long-lived signal).
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      options.signal?.addEventListener("abort", wake, { once: true });
    });
  const upkeep = auditUpkeep(options.db);
  while (!options.signal?.aborted) {
    try {
      if (Date.now() - lastSweep > 5_000) {
        lastSweep = Date.now();
        const expired = await expireDueActions(options.db);
        const recovered = await recoverStaleExecutions(options.db);
        // Events whose seal was never asked for (a process died right after writing them).
        const sealed = await sealAllPending(options.db);
        if (expired || recovered.length || sealed) {
          log(`expired ${expired} approvals, recovered ${recovered.length} executions, sealed ${sealed} audit events`);
        }
        const evidence = await upkeep();
        if (evidence) log(evidence);
      }
      const task = await claimNextTask(options.db, workerId);
      if (!task) {
        await sleep(pollMs);
        continue;
      }
      const result = await runClaimedTask(options.db, task, options.model(), { signal: options.signal });
      log(`task ${task.id}: ${result}`);
    } catch (error) {
      console.error(`[countersign] worker ${workerId} error:`, error);
      await sleep(pollMs);
    }
  }
}
