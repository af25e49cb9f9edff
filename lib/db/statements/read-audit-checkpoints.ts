import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type AuditCheckpointRow = {
  id: bigint; tenantId: string; size: bigint; rootHash: string; frontier: string[]; note: string; witnesses: string[]; createdAt: Date;
};

/**
 * The tenant's checkpoints, largest tree first: the latest (`limit: 1`), or every one up to
 * `maxSize` (a full verification and an export check the events against each).
 */
export async function readAuditCheckpoints(q: Queryable, input: { tenantId: string; limit?: number; maxSize?: bigint }): Promise<AuditCheckpointRow[]> {
  return query<AuditCheckpointRow>(q, Prisma.sql`
    SELECT id, "tenantId", size, "rootHash", frontier, note, witnesses, "createdAt" FROM "AuditCheckpoint"
    WHERE "tenantId" = ${input.tenantId}::uuid ${input.maxSize === undefined ? Prisma.empty : Prisma.sql`AND size <= ${input.maxSize}`}
    ORDER BY size DESC, id DESC ${input.limit === undefined ? Prisma.empty : Prisma.sql`LIMIT ${input.limit}`}`);
}
