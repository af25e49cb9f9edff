import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { chartActionConditions, type ChartFilter } from "@/lib/db/statements/audit/chart-action-filter";

/**
 * Seconds from proposal to decision of the tenant's actions that needed reviewers and were decided
 * (approved or rejected, whatever happened after) in [from, to); at most `limit` of them, in no
 * particular order. Planned for each call's values (the best plan depends on the range).
 */
export async function readTimesToDecision(q: Queryable, input: { tenantId: string; from: Date; to: Date; limit: number; filter?: ChartFilter }): Promise<number[]> {
  const rows = await query<{ seconds: number }>(q, Prisma.sql`
      SELECT EXTRACT(EPOCH FROM ("decidedAt" - "createdAt"))::float8 AS seconds
      FROM "Action" a WHERE "tenantId" = ${input.tenantId}::uuid AND "requiresApproval" AND "decidedAt" >= ${input.from} AND "decidedAt" < ${input.to}
        AND status IN ('approved', 'rejected', 'executing', 'succeeded', 'failed', 'unknown')${chartActionConditions(input.filter)}
      LIMIT ${input.limit}`, { prepare: false });
  return rows.map((row) => row.seconds);
}
