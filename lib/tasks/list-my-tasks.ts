import type { DbTx } from "@/lib/db/client";
import type { TaskStatus } from "@/lib/generated/prisma/enums";

export type MyTask = {
  id: string;
  instruction: string;
  status: TaskStatus;
  planner: string;
  createdAt: Date;
  updatedAt: Date;
  /** Actions of this task waiting for a reviewer right now. */
  pendingActions: number;
};

export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ["queued", "running", "waiting_approval"];

/** The requester's own tasks in this tenant, newest first (index: tenantId, requesterUserId, createdAt desc). */
export async function listMyTasks(db: DbTx, input: { tenantId: string; requesterUserId: string; take?: number }): Promise<MyTask[]> {
  const tasks = await db.task.findMany({
    where: { tenantId: input.tenantId, requesterUserId: input.requesterUserId },
    orderBy: { createdAt: "desc" },
    take: input.take ?? 50,
    select: {
      id: true, instruction: true, status: true, planner: true, createdAt: true, updatedAt: true,
      _count: { select: { actions: { where: { status: "pending" } } } },
    },
  });
  return tasks.map(({ _count, ...t }) => ({ ...t, pendingActions: _count.actions }));
}
