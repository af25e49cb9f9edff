import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/wake-task";

/**
 * The sweeper's statement: pending and approved-but-unexecuted actions whose window has closed
 * (database clock), up to `limit`, become `expired`, each with its audit event and its task's
 * wake-up. Rows another sweeper holds are skipped (SKIP LOCKED), so any number may run at once.
 */
export async function expireDueActions(q: Queryable, input: { limit: number; actor: AuditActor }): Promise<Array<{ id: string; tenantId: string }>> {
  return query<{ id: string; tenantId: string }>(q, Prisma.sql`
    WITH due AS (
      SELECT id, status::text AS previous FROM "Action"
      WHERE status IN ('pending', 'approved') AND "expiresAt" <= now()
      ORDER BY "expiresAt" LIMIT ${input.limit} FOR UPDATE SKIP LOCKED
    ),
    expired AS (
      UPDATE "Action" a SET status = 'expired', "decidedAt" = now(), "updatedAt" = now(),
        "statusReason" = 'The approval window closed before ' || CASE WHEN due.previous = 'pending' THEN 'a decision.' ELSE 'execution.' END
      FROM due WHERE a.id = due.id
      RETURNING a.id, a."tenantId", a.tool, a."taskId", a."requesterLabel", a."riskLevel"::text AS "riskLevel", a."currentRevision", due.previous
    ),
    events AS (
      SELECT e.id AS ord, jsonb_build_object('tenantId', e."tenantId", 'actorType', ${input.actor.type}::text, 'actorId', ${input.actor.id ?? null}::text,
        'actorLabel', ${input.actor.label}::text, 'type', 'action.expired', 'outcome', 'ok', 'subjectType', 'action', 'subjectId', e.id,
        'actionId', e.id, 'tool', e.tool, 'verdict', NULL, 'riskLevel', e."riskLevel", 'reviewerId', NULL, 'requester', e."requesterLabel",
        'status', 'expired', 'data', jsonb_build_object('revision', e."currentRevision", 'previousStatus', e.previous, 'detectedBy', 'sweeper')) AS event
      FROM expired e
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })}),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM expired`)})
    SELECT id, "tenantId" FROM expired`);
}
