import type { DbTx } from "@/lib/db/client";
import type { ActionStatus } from "@/lib/generated/prisma/enums";

/** An action in one of these states reached execution: something may have changed in the world. */
export const EXECUTED_ACTION_STATUSES: readonly ActionStatus[] = ["executing", "succeeded", "failed", "unknown"];

/**
 * How many of each task's actions reached execution, by task id (tasks with none are absent). A
 * completed task with none did nothing in the world: the console says so instead of a green
 * "completed" (components/tasks/task-status-badge.tsx).
 */
export async function executedActionCounts(db: DbTx, input: { tenantId: string; taskIds: string[] }): Promise<Map<string, number>> {
  if (input.taskIds.length === 0) return new Map();
  const groups = await db.action.groupBy({
    by: ["taskId"],
    where: { tenantId: input.tenantId, taskId: { in: input.taskIds }, status: { in: [...EXECUTED_ACTION_STATUSES] } },
    _count: { _all: true },
  });
  return new Map(groups.flatMap((g) => (g.taskId ? [[g.taskId, g._count._all] as const] : [])));
}
