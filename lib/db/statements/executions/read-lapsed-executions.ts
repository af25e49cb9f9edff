import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type LapsedExecution = {
  id: string; tenantId: string; actionId: string; revision: number; claimedBy: string | null; tool: string; requesterLabel: string;
};

/**
 * Executions still `executing` whose lease lapsed (database clock): what crash recovery will mark
 * `unknown`, read so the console can write (and MAC) their events. `markLapsedExecutionsUnknown`
 * re-checks each in the statement that marks it.
 */
export async function readLapsedExecutions(q: Queryable, input: { limit: number }): Promise<LapsedExecution[]> {
  return query<LapsedExecution>(q, Prisma.sql`
    SELECT e.id, e."tenantId", e."actionId", e.revision, e."claimedBy", a.tool, a."requesterLabel"
    FROM "Execution" e JOIN "Action" a ON a.id = e."actionId"
    WHERE e.status = 'executing' AND e."leaseExpiresAt" < now()
    ORDER BY e."leaseExpiresAt" LIMIT ${input.limit}`);
}
