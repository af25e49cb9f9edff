import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The lowest id among the tenant's 100 earliest events written at or after `atOrAfter`: a lower id
 * bound for that time (the margin: concurrent writers take ids in slightly different orders). Null:
 * no event was written then or later.
 */
export async function findAuditIdFloor(q: Queryable, input: { tenantId: string; atOrAfter: Date }): Promise<bigint | null> {
  const [row] = await query<{ id: bigint }>(q, Prisma.sql`
      SELECT min(id) AS id FROM (
        SELECT id FROM "AuditEvent" WHERE "tenantId" = ${input.tenantId}::uuid AND at >= ${input.atOrAfter} ORDER BY at ASC, id ASC LIMIT 100
      ) edge HAVING count(*) > 0`, { prepare: false });
  return row ? row.id : null;
}
