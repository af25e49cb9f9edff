import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditEventRow } from "@/lib/audit/search-audit-events";
import { auditEventColumns, auditEventConditions, auditEventSeals, type AuditEventFilter } from "@/lib/db/statements/audit-event-filter";

/** `text` as an ILIKE pattern for a substring: its own %, _ and \ match themselves. */
function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * Up to `limit` events, newest first with their seals, among the newest `scanLimit` events
 * matching `filter`, whose type, actor, requester or tool contains `text` (case-insensitive).
 * One pass over the filter's index in id order, bounded by `scanLimit`; the substring test runs
 * on those rows only, and the seals are joined to the page only. Planned for each call's values.
 */
export async function readAuditEventsMatchingText(
  q: Queryable,
  input: { filter: AuditEventFilter; text: string; scanLimit: number; limit: number },
): Promise<AuditEventRow[]> {
  const pattern = substringPattern(input.text);
  return query<AuditEventRow>(q, Prisma.sql`
    SELECT ${auditEventColumns} FROM (
      SELECT * FROM (SELECT * FROM "AuditEvent" e WHERE ${auditEventConditions(input.filter)} ORDER BY e.id DESC LIMIT ${input.scanLimit}) e
      WHERE e.type ILIKE ${pattern} OR e."actorLabel" ILIKE ${pattern} OR e.requester ILIKE ${pattern} OR e.tool ILIKE ${pattern}
      ORDER BY e.id DESC LIMIT ${input.limit}
    ) e ${auditEventSeals}
    ORDER BY e.id DESC`, { prepare: false });
}
