import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Wakes the tasks one of whose actions was decided, expired or executed, as a CTE of the
 * statement that made the change; the run loop checks itself that every action is decided.
 * `taskIds`: a uuid expression or subquery; `onlyIf` limits it. Tasks are locked in id order, so
 * two statements waking the same tasks cannot deadlock.
 */
export function wakeTaskSql(taskIds: Sql, onlyIf: Sql = Prisma.sql`true`): Sql {
  return Prisma.sql`
    UPDATE "Task" SET "runnableAt" = now(), "wakeSeq" = "wakeSeq" + 1, "updatedAt" = now()
    WHERE id IN (
      SELECT woken.id FROM "Task" woken
      WHERE woken.id IN (${taskIds}) AND woken.status IN ('running', 'waiting_approval', 'queued') AND (${onlyIf})
      ORDER BY woken.id FOR NO KEY UPDATE OF woken)`;
}
