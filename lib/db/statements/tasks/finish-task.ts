import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { jsonParam, query, type Queryable } from "@/lib/db/sql";

/**
 * Ends a task's run as completed or failed, with its final answer or error and its last run
 * state — only while `leaseOwner` still holds it (a worker that lost the task writes nothing).
 * Returns whether it did.
 */
export async function finishTask(
  q: Queryable,
  input: { taskId: string; leaseOwner: string; status: "completed" | "failed"; finalAnswer: string | null; error: string | null; runState: JsonObject },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Task" SET status = ${input.status}::"TaskStatus", "finalAnswer" = ${input.finalAnswer}, error = ${input.error},
      "runState" = ${jsonParam(input.runState)}::jsonb, "runnableAt" = NULL, "updatedAt" = now()
    WHERE id = ${input.taskId}::uuid AND "leaseOwner" = ${input.leaseOwner}
    RETURNING id`);
  return rows.length === 1;
}
