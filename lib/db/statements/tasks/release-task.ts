import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Gives a task back, if `leaseOwner` still holds it. It stays runnable if `keepRunnable`, or if a
 * wake-up arrived while the lease was held (its wakeSeq moved past `wakeSeq`, the value at the
 * claim); otherwise it sleeps (no runnableAt) until a decision wakes it.
 */
export async function releaseTask(q: Queryable, input: { taskId: string; leaseOwner: string; wakeSeq: number; keepRunnable: boolean }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "Task" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "runnableAt" = CASE WHEN ${input.keepRunnable} OR "wakeSeq" <> ${input.wakeSeq} THEN "runnableAt" ELSE NULL END
    WHERE id = ${input.taskId}::uuid AND "leaseOwner" = ${input.leaseOwner}`);
}
