import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Extends a running execution's lease from the database clock, while this holder still has it.
 * False: the lease is gone (recovery took the execution over, or it was recorded).
 */
export async function renewExecutionLease(q: Queryable, input: { executionId: string; claimedBy: string; leaseSeconds: number }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "Execution" SET "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds})
    WHERE id = ${input.executionId}::uuid AND status = 'executing' AND "claimedBy" = ${input.claimedBy}
    RETURNING id`);
  return rows.length === 1;
}
