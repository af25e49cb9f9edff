import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

export type LockedGrant = { id: string; usedCalls: number; usedTotal: string; tool: string; sourceActionId: string };

/**
 * The tenant's active grants (or only `grantId`), locked until the transaction ends so a call
 * taking one waits for the revocation and then finds it revoked. Expired grants are included: a
 * revocation records them too.
 */
export async function lockActiveGrants(tx: SqlClient, input: { tenantId: string; grantId: string | null }): Promise<LockedGrant[]> {
  return query<LockedGrant>(tx, Prisma.sql`
    SELECT g.id, g."usedCalls", g."usedTotal"::text AS "usedTotal", g.tool, g."sourceActionId"
    FROM "Grant" g
    WHERE g."tenantId" = ${input.tenantId}::uuid AND g.status = 'active' AND (${input.grantId}::uuid IS NULL OR g.id = ${input.grantId}::uuid)
    ORDER BY g.id
    FOR UPDATE OF g`);
}
