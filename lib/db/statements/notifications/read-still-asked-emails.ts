import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { memberStillAskedSql } from "@/lib/db/statements/notifications/reviewer-ask-rules";

/**
 * Of these reviewer-email outbox rows, those whose member is still asked to review what the row
 * announces, as the producer judged when it queued them (reviewer-ask-rules.ts): the action still
 * pending at that revision, the member still an active member with the role asked for (an
 * escalation's role, read from the audit event the row reports), not its requester, not yet voted.
 * The sender sends only these; a digest waits up to its period and a retry up to a day, and the
 * member may have been offboarded, or have voted, meanwhile.
 */
export async function readStillAskedEmails(q: Queryable, input: { ids: string[] }): Promise<Set<string>> {
  if (input.ids.length === 0) return new Set();
  const rows = await query<{ id: string }>(q, Prisma.sql`
    SELECT e.id::text AS id
    FROM "ReviewerEmail" e
    JOIN "Action" a ON a.id = e."actionId" AND a."tenantId" = e."tenantId" AND a.status = 'pending' AND a."currentRevision" = e.revision
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = e.revision
    LEFT JOIN LATERAL (
      SELECT ARRAY[ev.data->>'role'] AS roles FROM "AuditSeal" s JOIN "AuditEvent" ev ON ev.id = s."eventId"
      WHERE e.reason = 'escalated' AND s."tenantId" = e."tenantId" AND s.seq = e."auditSeq"
    ) asked ON true
    WHERE e.id = ANY(${input.ids}::uuid[]) AND ${memberStillAskedSql(Prisma.sql`e."userId"`, Prisma.sql`asked.roles`)}`);
  return new Set(rows.map((row) => row.id));
}
