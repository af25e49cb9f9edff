import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { chartActionConditions, type ChartFilter } from "@/lib/db/statements/audit/chart-action-filter";

/**
 * The tenant's actions that expired in [from, to), counted per UTC day ("YYYY-MM-DD") of their
 * expiry. Planned for each call's values (the best plan depends on the range).
 */
export async function countExpiriesPerDay(q: Queryable, input: { tenantId: string; from: Date; to: Date; filter?: ChartFilter }): Promise<Array<{ day: string; count: number }>> {
  const rows = await query<{ day: string; n: bigint }>(q, Prisma.sql`
      SELECT to_char(date_trunc('day', "decidedAt" AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*) AS n
      FROM "Action" a WHERE "tenantId" = ${input.tenantId}::uuid AND status = 'expired' AND "decidedAt" >= ${input.from} AND "decidedAt" < ${input.to}${chartActionConditions(input.filter)}
      GROUP BY 1`, { prepare: false });
  return rows.map((row) => ({ day: row.day, count: Number(row.n) }));
}
