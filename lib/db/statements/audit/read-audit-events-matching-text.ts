import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { auditEventColumns, auditEventConditions, auditEventSeals, type AuditEventFilter, type AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";

/** `text` as an ILIKE pattern for a substring: its own %, _ and \ match themselves. */
export function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * Up to `limit` events, newest first with their seals, among the newest `scanLimit` matching
 * `filter`, whose type, actor, requester, tool, data or action's arguments or code (any revision)
 * contain `text` (case-insensitive). One bounded pass over the filter's index; the substring test
 * and the seals' join touch those rows only. Planned for each call's values.
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
        OR e.data::text ILIKE ${pattern}
        OR (e."actionId" IS NOT NULL AND EXISTS (
          SELECT 1 FROM "ActionRevision" r
          WHERE r."tenantId" = e."tenantId" AND r."actionId" = e."actionId" AND (r.args::text ILIKE ${pattern} OR r.code ILIKE ${pattern})))
      ORDER BY e.id DESC LIMIT ${input.limit}
    ) e ${auditEventSeals}
    ORDER BY e.id DESC`, { prepare: false });
}
