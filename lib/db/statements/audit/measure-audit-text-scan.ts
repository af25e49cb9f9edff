import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { auditEventConditions, type AuditEventFilter } from "@/lib/db/statements/audit/audit-event-filter";

/**
 * The window a free-text scan looked through: how many of the newest `scanLimit` events match
 * `filter` (at most `scanLimit`), and the lowest id among them (null if none), where a further
 * scan would continue. Planned for each call's values.
 */
export async function measureAuditTextScan(q: Queryable, input: { filter: AuditEventFilter; scanLimit: number }): Promise<{ scanned: number; floor: bigint | null }> {
  const [row] = await query<{ scanned: bigint; floor: bigint | null }>(q, Prisma.sql`
    SELECT count(*) AS scanned, min(id) AS floor FROM (SELECT e.id FROM "AuditEvent" e WHERE ${auditEventConditions(input.filter)} ORDER BY e.id DESC LIMIT ${input.scanLimit}) w`,
  { prepare: false });
  return { scanned: Number(row.scanned), floor: row.floor };
}
