import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Db } from "@/lib/db/client";
import type { ChatModel } from "@/lib/agent/model";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { recoverStaleExecutions } from "@/lib/approvals/recover-executions";
import { advanceTask, type StepResult } from "@/lib/tasks/advance-task";

export const TASK_LEASE_MS = Number(process.env.COUNTERSIGN_TASK_LEASE_MS ?? 60_000);

export function newWorkerId(): string {
  return `worker:${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export type ClaimedTask = { id: string; tenantId: string; leaseOwner: string; wakeSeq: number };

/**
 * Claims one runnable task whose lease is free or lapsed. `FOR UPDATE SKIP LOCKED` lets any number
 * of workers on any number of machines share one database without ever claiming the same task.
 */
export async function claimNextTask(db: Db, workerId: string, leaseMs = TASK_LEASE_MS): Promise<ClaimedTask | null> {
  const rows = await db.$queryRaw<Array<{ id: string; tenantId: string; wakeSeq: number }>>`
    UPDATE "Task" SET "leaseOwner" = ${workerId}, "leaseExpiresAt" = now() + make_interval(secs => ${leaseMs / 1000}),
      status = CASE WHEN status = 'queued' THEN 'running'::"TaskStatus" ELSE status END, "updatedAt" = now()
    WHERE id = (
      SELECT id FROM "Task"
      WHERE "runnableAt" IS NOT NULL AND "runnableAt" <= now()
        AND status IN ('queued', 'running', 'waiting_approval')
        AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
      ORDER BY "runnableAt" LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, "tenantId", "wakeSeq"`;
  const row = rows[0];
  return row ? { ...row, leaseOwner: workerId } : null;
}

async function renewLease(db: Db, task: ClaimedTask, leaseMs: number): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE "Task" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${task.id}::uuid AND "leaseOwner" = ${task.leaseOwner}`;
  return n === 1;
}

/**
 * Gives the task back. It stays runnable if it can go on, or if a wake-up arrived while this
 * worker held it (wakeSeq moved); otherwise it sleeps until a decision wakes it.
 */
async function releaseTask(db: Db, task: ClaimedTask, keepRunnable: boolean): Promise<void> {
  await db.$executeRaw`
    UPDATE "Task" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "runnableAt" = CASE WHEN ${keepRunnable} OR "wakeSeq" <> ${task.wakeSeq} THEN "runnableAt" ELSE NULL END
    WHERE id = ${task.id}::uuid AND "leaseOwner" = ${task.leaseOwner}`;
}

/** Drives one claimed task until it waits for reviewers, finishes, or loses its lease. */
export async function runClaimedTask(db: Db, task: ClaimedTask, model: ChatModel, options: { leaseMs?: number; signal?: AbortSignal } = {}): Promise<StepResult> {
  const leaseMs = options.leaseMs ?? TASK_LEASE_MS;
  let result: StepResult = "continue";
  try {
    while (result === "continue" && !options.signal?.aborted) {
      result = await advanceTask(db, task, model, options.signal);
      if (result === "continue" && !(await renewLease(db, task, leaseMs))) result = "lease_lost";
    }
  } finally {
    if (result !== "lease_lost") await releaseTask(db, task, result === "continue");
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
  const pollMs = options.pollMs ?? Number(process.env.COUNTERSIGN_WORKER_POLL_MS ?? 1000);
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
