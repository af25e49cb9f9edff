import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

export type ActionToExpire = { id: string; previous: "pending" | "approved"; revision: number; event: AttestedAuditBody };

/**
 * The sweeper's statement: the actions read by `readDueActions` become `expired`, each with its
 * audit event (written by the console, so it carries its MAC) and its task's wake-up — but only
 * those still due, in the status and revision they were read in: one changed since (decided,
 * edited, executed) is left alone. Rows another sweeper holds are skipped (SKIP LOCKED), so any
 * number may run at once.
 */
export async function expireDueActions(q: Queryable, rows: ActionToExpire[]): Promise<Array<{ id: string; tenantId: string }>> {
  if (rows.length === 0) return [];
  return query<{ id: string; tenantId: string }>(q, Prisma.sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows.map((row, ord) => ({ ...row, ord })))}::jsonb)
        AS x(ord int, id uuid, previous text, revision int, event jsonb)
    ),
    due AS (
      SELECT a.id, i.previous FROM "Action" a JOIN input i ON i.id = a.id
      WHERE a.status::text = i.previous AND a."currentRevision" = i.revision AND a."expiresAt" <= now()
      FOR UPDATE OF a SKIP LOCKED
    ),
    expired AS (
      UPDATE "Action" a SET status = 'expired', "decidedAt" = now(), "updatedAt" = now(),
        "statusReason" = 'The approval window closed before ' || CASE WHEN due.previous = 'pending' THEN 'a decision.' ELSE 'execution.' END
      FROM due WHERE a.id = due.id
      RETURNING a.id, a."tenantId", a."taskId"
    ),
    events AS (SELECT i.ord, i.event FROM input i JOIN expired e ON e.id = i.id),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })}),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM expired`)})
    SELECT id, "tenantId" FROM expired`);
}
