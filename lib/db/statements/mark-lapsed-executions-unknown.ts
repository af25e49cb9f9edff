import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/wake-task";

/**
 * Crash recovery's statement: executions still `executing` whose lease lapsed (database clock) —
 * their process stopped renewing it mid-delivery — become `unknown` for a person to resolve, with
 * their actions, audit events and tasks' wake-ups. They are never re-run: what was delivered
 * (a sandbox run, an email handed to SMTP) cannot be known from here. Rows another process holds
 * are skipped, so any number of workers may run it at once.
 */
export async function markLapsedExecutionsUnknown(
  q: Queryable,
  input: { limit: number; actor: AuditActor; message: string },
): Promise<Array<{ executionId: string; tenantId: string }>> {
  return query<{ executionId: string; tenantId: string }>(q, Prisma.sql`
    WITH lapsed AS (
      SELECT id FROM "Execution" WHERE status = 'executing' AND "leaseExpiresAt" < now()
      ORDER BY "leaseExpiresAt" LIMIT ${input.limit} FOR UPDATE SKIP LOCKED
    ),
    marked AS (
      UPDATE "Execution" e SET status = 'unknown', error = ${input.message}, result = jsonb_build_object('error', ${input.message}::text),
        "finishedAt" = now(), "leaseExpiresAt" = NULL
      FROM lapsed WHERE e.id = lapsed.id
      RETURNING e.id, e."tenantId", e."actionId", e.revision, e."claimedBy"
    ),
    actions AS (
      UPDATE "Action" a SET status = 'unknown', "updatedAt" = now()
      FROM marked m WHERE a.id = m."actionId"
      RETURNING a.id, a.tool, a."taskId", a."requesterLabel"
    ),
    events AS (
      SELECT m.id AS ord, jsonb_build_object('tenantId', m."tenantId", 'actorType', ${input.actor.type}::text, 'actorId', ${input.actor.id ?? null}::text,
        'actorLabel', ${input.actor.label}::text, 'type', 'execution.unknown', 'outcome', 'error', 'subjectType', 'execution', 'subjectId', m.id,
        'actionId', m."actionId", 'tool', a.tool, 'verdict', NULL, 'riskLevel', NULL, 'reviewerId', NULL, 'requester', a."requesterLabel",
        'status', 'unknown', 'data', jsonb_build_object('executionId', m.id, 'revision', m.revision, 'previousOwner', m."claimedBy",
          'error', ${input.message}::text)) AS event
      FROM marked m JOIN actions a ON a.id = m."actionId"
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })}),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM actions`)})
    SELECT id AS "executionId", "tenantId" FROM marked`);
}
