import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { chartActionConditions, type ChartFilter } from "@/lib/db/statements/audit/chart-action-filter";

/**
 * The tenant's votes (void ones left out) cast in [from, to), counted per UTC day ("YYYY-MM-DD")
 * and verdict. Planned for each call's values (the best plan depends on the range).
 */
export async function countDecisionsPerDay(
  q: Queryable,
  input: { tenantId: string; from: Date; to: Date; filter?: ChartFilter },
): Promise<Array<{ day: string; verdict: string; count: number }>> {
  // The filters on the vote's action (its tool, risk, requester, status, text), when there are any.
  const onAction = chartActionConditions({ ...input.filter, reviewerId: undefined, verdict: undefined });
  const rows = await query<{ day: string; verdict: string; n: bigint }>(q, Prisma.sql`
      SELECT to_char(date_trunc('day', "createdAt" AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, verdict::text AS verdict, count(*) AS n
      FROM "Decision" d WHERE "tenantId" = ${input.tenantId}::uuid AND "createdAt" >= ${input.from} AND "createdAt" < ${input.to} AND NOT void
        ${input.filter?.reviewerId ? Prisma.sql`AND d."reviewerId" = ${input.filter.reviewerId}::uuid` : Prisma.empty}
        ${input.filter?.verdict ? Prisma.sql`AND d.verdict::text = ${input.filter.verdict}` : Prisma.empty}
        ${onAction === Prisma.empty ? Prisma.empty : Prisma.sql`AND EXISTS (SELECT 1 FROM "Action" a WHERE a.id = d."actionId" AND a."tenantId" = d."tenantId"${onAction})`}
      GROUP BY 1, 2`, { prepare: false });
  return rows.map((row) => ({ day: row.day, verdict: row.verdict, count: Number(row.n) }));
}
