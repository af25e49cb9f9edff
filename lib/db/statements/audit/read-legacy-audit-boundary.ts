import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Events written before events carried MACs: the largest such id and how many there were, fixed
 * by the migration that introduced MACs (functions the app's database role cannot replace).
 */
export async function readLegacyAuditBoundary(q: Queryable): Promise<{ ceiling: bigint; count: bigint }> {
  const [row] = await query<{ ceiling: bigint; count: bigint }>(q, Prisma.sql`SELECT audit_legacy_ceiling() AS ceiling, audit_legacy_count() AS count`);
  return row;
}
