import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Signed checkpoints of any tenant (their notes), newest first, older than `beforeId` when given. */
export async function readAuditCheckpointNotes(q: Queryable, input: { beforeId: bigint | null; limit: number }): Promise<Array<{ id: bigint; note: string }>> {
  return query<{ id: bigint; note: string }>(q, Prisma.sql`
    SELECT id, note FROM "AuditCheckpoint"
    WHERE ${input.beforeId === null ? Prisma.sql`TRUE` : Prisma.sql`id < ${input.beforeId}`}
    ORDER BY id DESC LIMIT ${input.limit}`);
}
