import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

export type LockedGrant = { id: string; usedCalls: number; usedTotal: string; tool: string; sourceActionId: string };

/**
 * The tenant's active grants (or only `grantId`), locked until the transaction ends so a call
 * taking one waits for the revocation and then finds it revoked. Expired grants are included: a
 * revocation records them too. The tenant's row is locked first, in a statement of its own: the
 * stop button holds it before the grants, and a revocation must take them in the same order.
 */
export async function lockActiveGrants(tx: SqlClient, input: { tenantId: string; grantId: string | null }): Promise<LockedGrant[]> {
  await query(tx, Prisma.sql`SELECT id FROM "Tenant" WHERE id = ${input.tenantId}::uuid FOR NO KEY UPDATE`);
  return query<LockedGrant>(tx, Prisma.sql`
    SELECT g.id, g."usedCalls", g."usedTotal"::text AS "usedTotal", g.tool, g."sourceActionId"
    FROM "Grant" g
    WHERE g."tenantId" = ${input.tenantId}::uuid AND g.status = 'active' AND (${input.grantId}::uuid IS NULL OR g.id = ${input.grantId}::uuid)
    ORDER BY g.id
    FOR UPDATE OF g`);
}
