import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Extends a task's lease to `leaseSeconds` from the database's now(), while `leaseOwner` still
 * holds it. False: the lease is gone (it lapsed and another worker claimed the task).
 */
export async function renewTaskLease(q: Queryable, input: { taskId: string; leaseOwner: string; leaseSeconds: number }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Task" SET "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds})
    WHERE id = ${input.taskId}::uuid AND "leaseOwner" = ${input.leaseOwner}
    RETURNING id`);
  return rows.length === 1;
}
