import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * The wake-up of the tasks one of whose actions was decided, expired or executed, as the body of
 * a CTE in the statement that made that change: their run loops may make progress. `taskIds` is
 * one uuid expression or a subquery (`SELECT "taskId" FROM …`); `onlyIf` limits it further. The
 * run loop itself checks whether every pending action is decided before it resumes. The tasks are
 * locked in id order first, so two statements waking the same tasks (a sweep and a resume, say)
 * take them in one order and cannot deadlock.
 */
export function wakeTaskSql(taskIds: Sql, onlyIf: Sql = Prisma.sql`true`): Sql {
  return Prisma.sql`
    UPDATE "Task" SET "runnableAt" = now(), "wakeSeq" = "wakeSeq" + 1, "updatedAt" = now()
    WHERE id IN (
      SELECT woken.id FROM "Task" woken
      WHERE woken.id IN (${taskIds}) AND woken.status IN ('running', 'waiting_approval', 'queued') AND (${onlyIf})
      ORDER BY woken.id FOR NO KEY UPDATE OF woken)`;
}
