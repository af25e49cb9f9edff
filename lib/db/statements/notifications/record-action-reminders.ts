import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import type { ReminderKind } from "@/lib/db/statements/notifications/read-due-reminders";

export type ReminderToRecord = { actionId: string; revision: number; kind: ReminderKind; event: AttestedAuditBody };

/**
 * Fires reminders, each at most once: for an action still pending at the revision read, the row
 * unique on (action, revision, kind) is inserted, and only rows this statement inserted get their
 * event (a second sweeper waits on the key and writes nothing). Returns the reminders fired.
 */
export async function recordActionReminders(
  q: Queryable,
  rows: ReminderToRecord[],
): Promise<Array<{ actionId: string; tenantId: string; kind: ReminderKind }>> {
  if (rows.length === 0) return [];
  return query<{ actionId: string; tenantId: string; kind: ReminderKind }>(q, Prisma.sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows.map((row, ord) => ({ ...row, ord })))}::jsonb)
        AS x(ord int, "actionId" uuid, revision int, kind text, event jsonb)
    ),
    fired AS (
      INSERT INTO "ActionReminder" (id, "tenantId", "actionId", revision, kind)
      SELECT gen_random_uuid(), a."tenantId", a.id, i.revision, i.kind
      FROM input i JOIN "Action" a ON a.id = i."actionId" AND a.status = 'pending' AND a."currentRevision" = i.revision
      ON CONFLICT ("actionId", revision, kind) DO NOTHING
      RETURNING "actionId", "tenantId", kind, revision
    ),
    events AS (SELECT i.ord, i.event FROM input i JOIN fired f ON f."actionId" = i."actionId" AND f.kind = i.kind AND f.revision = i.revision),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })})
    SELECT "actionId", "tenantId", kind FROM fired`);
}
