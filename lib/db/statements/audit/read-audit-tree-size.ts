import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** How many leaves the tenant's tree has (its newest seal's seq). */
export async function readAuditTreeSize(q: Queryable, input: { tenantId: string }): Promise<bigint> {
  const [row] = await query<{ size: bigint | null }>(q, Prisma.sql`
    SELECT max(seq) AS size FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid`);
  return row.size ?? 0n;
}
