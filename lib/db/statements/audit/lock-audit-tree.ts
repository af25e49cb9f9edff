import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/**
 * Serialises sealing of one tenant's tree until the transaction ends (a transaction-scoped
 * advisory lock on the tenant), and returns the tree's head — its size and the floor recorded on
 * its newest seal — read after the lock is held, and the oldest transaction still running now.
 */
export async function lockAuditTree(tx: SqlClient, input: { tenantId: string }): Promise<{ size: bigint; floor: string; xmin: string }> {
  await query(tx, Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended('countersign.audit-tree:' || ${input.tenantId}, 0))`);
  const [row] = await query<{ size: bigint | null; floor: string | null; xmin: string }>(tx, Prisma.sql`
    SELECT (SELECT seq FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid ORDER BY seq DESC LIMIT 1) AS size,
      (SELECT floor::text FROM "AuditSeal" WHERE "tenantId" = ${input.tenantId}::uuid ORDER BY seq DESC LIMIT 1) AS floor,
      pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return { size: row.size ?? 0n, floor: row.floor ?? "0", xmin: row.xmin };
}
