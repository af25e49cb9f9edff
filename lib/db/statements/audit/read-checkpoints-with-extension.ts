import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The newest checkpoint rows of any tenant whose note has an extension line starting with
 * `prefix` (followed by a space), at most `limit`: what the console signed into its history.
 * Rows are input, not evidence: the caller verifies each note's signature.
 */
export async function readCheckpointsWithExtension(q: Queryable, input: { prefix: string; limit: number }): Promise<Array<{ tenantId: string; note: string }>> {
  return query<{ tenantId: string; note: string }>(q, Prisma.sql`
    SELECT "tenantId", note FROM "AuditCheckpoint"
    WHERE strpos(note, ${`\n${input.prefix} `}) > 0
    ORDER BY id DESC LIMIT ${input.limit}`);
}
