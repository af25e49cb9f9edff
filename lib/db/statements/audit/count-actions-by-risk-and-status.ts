import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { chartActionConditions, type ChartFilter } from "@/lib/db/statements/audit/chart-action-filter";

/**
 * The tenant's actions proposed in [from, to), counted per risk level and current status.
 * Planned for each call's values (the best plan depends on the range).
 */
export async function countActionsByRiskAndStatus(
  q: Queryable,
  input: { tenantId: string; from: Date; to: Date; filter?: ChartFilter },
): Promise<Array<{ risk: RiskLevel; status: string; count: number }>> {
  const rows = await query<{ risk: RiskLevel; status: string; n: bigint }>(q, Prisma.sql`
      SELECT "riskLevel"::text AS risk, status::text AS status, count(*) AS n
      FROM "Action" a WHERE "tenantId" = ${input.tenantId}::uuid AND "createdAt" >= ${input.from} AND "createdAt" < ${input.to}${chartActionConditions(input.filter)}
      GROUP BY 1, 2`, { prepare: false });
  return rows.map((row) => ({ risk: row.risk, status: row.status, count: Number(row.n) }));
}
