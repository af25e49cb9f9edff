import type { DbTx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * The wake-up of a task one of whose actions was decided, expired or executed, as a statement (or
 * the body of a CTE in one): its run loop may make progress. `onlyIf` limits it further.
 */
export function wakeTaskSql(taskId: Sql, onlyIf: Sql = Prisma.sql`true`): Sql {
  return Prisma.sql`
    UPDATE "Task" SET "runnableAt" = now(), "wakeSeq" = "wakeSeq" + 1, "updatedAt" = now()
    WHERE id = ${taskId} AND status IN ('running', 'waiting_approval', 'queued') AND (${onlyIf})`;
}

/**
 * Tells workers a task may make progress (one of its actions was decided, expired or executed).
 * The run loop itself checks whether every pending action is decided before it resumes.
 */
export async function markTaskRunnable(tx: DbTx, taskId: string | null | undefined): Promise<void> {
  if (!taskId) return;
  await tx.$executeRaw(wakeTaskSql(Prisma.sql`${taskId}::uuid`));
}
