import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * The wake-up of the tasks one of whose actions was decided, expired or executed, as the body of
 * a CTE in the statement that made that change: their run loops may make progress. `taskIds` is
 * one uuid expression or a subquery (`SELECT "taskId" FROM …`); `onlyIf` limits it further. The
 * run loop itself checks whether every pending action is decided before it resumes.
 */
export function wakeTaskSql(taskIds: Sql, onlyIf: Sql = Prisma.sql`true`): Sql {
  return Prisma.sql`
    UPDATE "Task" SET "runnableAt" = now(), "wakeSeq" = "wakeSeq" + 1, "updatedAt" = now()
    WHERE id IN (${taskIds}) AND status IN ('running', 'waiting_approval', 'queued') AND (${onlyIf})`;
}
