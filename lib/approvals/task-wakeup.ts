import type { DbTx } from "@/lib/db/client";

/**
 * Tells workers a task may make progress (one of its actions was decided, expired or executed).
 * The run loop itself checks whether every pending action is decided before it resumes.
 */
export async function markTaskRunnable(tx: DbTx, taskId: string | null | undefined): Promise<void> {
  if (!taskId) return;
  await tx.$executeRaw`
    UPDATE "Task" SET "runnableAt" = now(), "wakeSeq" = "wakeSeq" + 1, "updatedAt" = now()
    WHERE id = ${taskId}::uuid AND status IN ('running', 'waiting_approval', 'queued')`;
}
