import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { auditEventColumns, auditEventConditions, auditEventSeals, type AuditEventFilter, type AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";

/**
 * Up to `limit` of the events matching `filter`, newest (highest id) first, with their seals. The
 * filter's index is walked in id order and the seals are joined to those rows only. Planned for
 * each call's values (the best index depends on the filter).
 */
export async function readAuditEventsPage(q: Queryable, input: { filter: AuditEventFilter; limit: number }): Promise<AuditEventRow[]> {
  return query<AuditEventRow>(q, Prisma.sql`
      SELECT ${auditEventColumns} FROM (SELECT * FROM "AuditEvent" e WHERE ${auditEventConditions(input.filter)} ORDER BY e.id DESC LIMIT ${input.limit}) e ${auditEventSeals}
      ORDER BY e.id DESC`, { prepare: false });
}
