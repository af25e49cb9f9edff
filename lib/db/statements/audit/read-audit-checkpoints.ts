import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type AuditCheckpointRow = {
  id: bigint; tenantId: string; size: bigint; rootHash: string; frontier: string[]; note: string; witnesses: string[]; createdAt: Date;
};

/**
 * The tenant's latest checkpoint rows, largest tree first, at most `limit`, up to `maxSize` and
 * before `before` (a page's last row) when given. Rows are input, not evidence:
 * lib/audit/trusted-checkpoints.ts picks the ones the console signed. Tens of thousands a month:
 * read them a page at a time (readAuditCheckpointPage) or pick some (readExportCheckpoints).
 */
export async function readAuditCheckpoints(
  q: Queryable,
  input: { tenantId: string; limit: number; maxSize?: bigint; before?: CheckpointCursor },
): Promise<AuditCheckpointRow[]> {
  const maxSize = input.maxSize === undefined ? Prisma.empty : Prisma.sql`AND size <= ${input.maxSize}`;
  const before = input.before === undefined ? Prisma.empty : Prisma.sql`AND (size, id) < (${input.before.size}, ${input.before.id})`;
  return query<AuditCheckpointRow>(q, Prisma.sql`
    SELECT id, "tenantId", size, "rootHash", frontier, note, witnesses, "createdAt" FROM "AuditCheckpoint"
    WHERE "tenantId" = ${input.tenantId}::uuid ${maxSize} ${before}
    ORDER BY size DESC, id DESC LIMIT ${input.limit}`);
}

/** What a walk of the log checks of a checkpoint: its signed note, and the size and root its row says. */
export type CheckpointSummary = Pick<AuditCheckpointRow, "id" | "size" | "rootHash" | "note">;

/** Where a page of checkpoints ends: the next page begins after it. */
export type CheckpointCursor = { size: bigint; id: bigint };

/** The tenant's checkpoints after `after` (from the first when null), smallest tree first, at most `limit`. */
export async function readAuditCheckpointPage(
  q: Queryable,
  input: { tenantId: string; after: CheckpointCursor | null; limit: number },
): Promise<CheckpointSummary[]> {
  const after = input.after ? Prisma.sql`AND (size, id) > (${input.after.size}, ${input.after.id})` : Prisma.empty;
  return query<CheckpointSummary>(q, Prisma.sql`
    SELECT id, size, "rootHash", note FROM "AuditCheckpoint"
    WHERE "tenantId" = ${input.tenantId}::uuid ${after}
    ORDER BY size, id LIMIT ${input.limit}`);
}

/**
 * The checkpoints an export carries, smallest tree first: one per size (the latest signed at it),
 * the first and the newest, at most `max` in all.
 */
export async function readExportCheckpoints(q: Queryable, input: { tenantId: string; max: number }): Promise<CheckpointSummary[]> {
  return query<CheckpointSummary>(q, Prisma.sql`
    WITH per_size AS (
      SELECT DISTINCT ON (size) id, size, "rootHash", note FROM "AuditCheckpoint"
      WHERE "tenantId" = ${input.tenantId}::uuid ORDER BY size, id DESC
    ),
    first AS (SELECT * FROM per_size ORDER BY size LIMIT 1),
    newest AS (SELECT * FROM per_size ORDER BY size DESC LIMIT ${Math.max(1, input.max - 1)})
    SELECT * FROM first UNION SELECT * FROM newest ORDER BY size`);
}
