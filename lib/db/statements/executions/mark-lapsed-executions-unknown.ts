import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

export type ExecutionToMark = { id: string; event: AttestedAuditBody };

/**
 * Crash recovery's statement: the executions read by `readLapsedExecutions` — their process
 * stopped renewing the lease mid-delivery — become `unknown` for a person to resolve, with their
 * actions, audit events (written by the console) and tasks' wake-ups; only those still
 * `executing` with a lapsed lease now (one whose lease was renewed since is left alone). They are
 * never re-run: what was delivered (a sandbox run, an email handed to SMTP) cannot be known from
 * here. Rows another process holds are skipped, so any number of workers may run it at once.
 */
export async function markLapsedExecutionsUnknown(
  q: Queryable,
  input: { rows: ExecutionToMark[]; message: string },
): Promise<Array<{ executionId: string; tenantId: string }>> {
  if (input.rows.length === 0) return [];
  return query<{ executionId: string; tenantId: string }>(q, Prisma.sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input.rows.map((row, ord) => ({ ...row, ord })))}::jsonb) AS x(ord int, id uuid, event jsonb)
    ),
    lapsed AS (
      SELECT e.id FROM "Execution" e JOIN input i ON i.id = e.id
      WHERE e.status = 'executing' AND e."leaseExpiresAt" < now()
      FOR UPDATE OF e SKIP LOCKED
    ),
    marked AS (
      UPDATE "Execution" e SET status = 'unknown', error = ${input.message}, result = jsonb_build_object('error', ${input.message}::text),
        "finishedAt" = now(), "leaseExpiresAt" = NULL
      FROM lapsed WHERE e.id = lapsed.id
      RETURNING e.id, e."tenantId", e."actionId"
    ),
    actions AS (
      UPDATE "Action" a SET status = 'unknown', "updatedAt" = now()
      FROM marked m WHERE a.id = m."actionId"
      RETURNING a.id, a."taskId"
    ),
    events AS (SELECT i.ord, i.event FROM input i JOIN marked m ON m.id = i.id),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })}),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM actions`)})
    SELECT id AS "executionId", "tenantId" FROM marked`);
}
