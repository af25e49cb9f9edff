import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

/**
 * Locks the tenant's audit chain head (FOR UPDATE, until the transaction ends) and reads it: the
 * last sealed seq and hash. Sealing holds this lock, so a tenant's chain is sealed by one
 * transaction at a time and never forks, whichever process seals. Null: the tenant has no head.
 */
export async function lockAuditHead(tx: SqlClient, input: { tenantId: string }): Promise<{ seq: bigint; hash: string } | null> {
  const [row] = await query<{ seq: bigint; hash: string }>(tx, Prisma.sql`
    SELECT seq, hash FROM "AuditHead" WHERE "tenantId" = ${input.tenantId}::uuid FOR UPDATE`);
  return row ?? null;
}
