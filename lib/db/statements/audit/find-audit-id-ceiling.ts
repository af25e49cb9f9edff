import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The highest id among the tenant's 100 latest events written before `before`: an upper id bound
 * for that time, with the same margin as findAuditIdFloor. Null: no event was written before then.
 */
export async function findAuditIdCeiling(q: Queryable, input: { tenantId: string; before: Date }): Promise<bigint | null> {
  const [row] = await query<{ id: bigint }>(q, Prisma.sql`
      SELECT max(id) AS id FROM (
        SELECT id FROM "AuditEvent" WHERE "tenantId" = ${input.tenantId}::uuid AND at < ${input.before} ORDER BY at DESC, id DESC LIMIT 100
      ) edge HAVING count(*) > 0`, { prepare: false });
  return row ? row.id : null;
}
