import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { agentsPausedSql } from "@/lib/db/statements/tenant/agent-pause-rules";

/**
 * Claims the longest-runnable task whose lease is free or lapsed, leasing it to `workerId` for
 * `leaseSeconds` (database clock); a queued task starts running. A paused tenant's tasks are
 * skipped (agent-pause-rules.ts) and go on once resumed. `SKIP LOCKED`: any number of workers
 * share one database. Null: nothing to run.
 */
export async function claimRunnableTask(
  q: Queryable,
  input: { workerId: string; leaseSeconds: number },
): Promise<{ id: string; tenantId: string; wakeSeq: number } | null> {
  const [row] = await query<{ id: string; tenantId: string; wakeSeq: number }>(q, Prisma.sql`
    UPDATE "Task" SET "leaseOwner" = ${input.workerId}, "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds}),
      status = CASE WHEN status = 'queued' THEN 'running'::"TaskStatus" ELSE status END, "updatedAt" = now()
    WHERE id = (
      SELECT id FROM "Task"
      WHERE "runnableAt" IS NOT NULL AND "runnableAt" <= now()
        AND status IN ('queued', 'running', 'waiting_approval')
        AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
        AND NOT ${agentsPausedSql(Prisma.sql`"Task"."tenantId"`)}
      ORDER BY "runnableAt" LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, "tenantId", "wakeSeq"`);
  return row ?? null;
}
