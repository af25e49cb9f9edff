import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/**
 * Locks the trees of `tenantIds` for this session, in id order (two sealers never wait for each
 * other in a circle), until unlockAuditTrees: sealing is serialised per tenant across processes,
 * so a tree never forks. A session's lock, not a transaction's: a pass reads its trees in one
 * statement and writes every seal in one autocommitted statement, and the lock spans both. Taken
 * in a statement of its own, so the read after it sees every pass that held the lock before.
 */
export async function lockAuditTrees(conn: SqlClient, tenantIds: string[]): Promise<void> {
  await query(conn, Prisma.sql`
    SELECT count(pg_advisory_lock(hashtextextended('countersign.audit-tree:' || t.id::text, 0)))
    FROM (SELECT DISTINCT u.id FROM unnest(${tenantIds}::uuid[]) AS u(id) ORDER BY u.id) t`);
}

/** Releases what lockAuditTrees took (run it however the pass ended). */
export async function unlockAuditTrees(conn: SqlClient, tenantIds: string[]): Promise<void> {
  await query(conn, Prisma.sql`
    SELECT count(pg_advisory_unlock(hashtextextended('countersign.audit-tree:' || t.id::text, 0)))
    FROM (SELECT DISTINCT u.id FROM unnest(${tenantIds}::uuid[]) AS u(id)) t`);
}
