import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Locks the grants (each of its tenant) in id order until the transaction ends: the budget path
 * takes them after the budgets' locks and before the proposal statements that take their calls,
 * so two budget transactions taking the same grants never wait for each other in a circle.
 */
export async function lockGrants(q: Queryable, grants: ReadonlyArray<{ tenantId: string; grantId: string }>): Promise<void> {
  const unique = [...new Map(grants.map((g) => [g.grantId, g])).values()];
  if (unique.length === 0) return;
  await query(q, Prisma.sql`
    SELECT g.id FROM "Grant" g
    JOIN unnest(${unique.map((g) => g.tenantId)}::uuid[], ${unique.map((g) => g.grantId)}::uuid[]) AS w("tenantId", id)
      ON g."tenantId" = w."tenantId" AND g.id = w.id
    ORDER BY g.id
    FOR UPDATE OF g`);
}
