import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { hasSealAfterCursorSql, sealsAfterCursorSql } from "@/lib/db/statements/audit/audit-cursor-rules";

/**
 * The Slack outbox's producer, in one statement: for each tenant's integration not being handled
 * by another worker (`SKIP LOCKED`), the sealed leaves after its cursor (up to `batch`). An action
 * that starts waiting for review (proposed pending, or revised) gets its message row; any later
 * event about an action with a row (a vote, expiry, invalidation, cancellation, reopening, execution) marks
 * it due again, so the worker renders the action's state at send time and updates the message.
 * An escalation whose rule names a channel (`action.escalated` with `data.channel`) gets a notice
 * row, unique per sealed leaf, so it is posted once however often the log is read. The cursor
 * moves past every leaf read; a repeated pass adds nothing. Returns the rows made due.
 */
export async function enqueueSlackMessages(q: Queryable, input: { retryWindowSeconds: number; batch: number }): Promise<number> {
  const [row] = await query<{ due: number }>(q, Prisma.sql`
    WITH cfg AS (
      SELECT i."tenantId", i."cursorSeq" FROM "SlackIntegration" i
      WHERE ${hasSealAfterCursorSql("i")}
      FOR UPDATE OF i SKIP LOCKED
    ),
    leaves AS (
      SELECT cfg."tenantId", s.seq, e."actionId", e.type, e.data,
        (e.type = 'action.proposed' AND e.status = 'pending') OR e.type = 'action.revised' AS opens,
        e.type IN ('action.proposed', 'action.revised', 'decision.recorded', 'action.expired', 'action.invalidated', 'action.cancelled', 'action.reopened', 'action.reapproved',
          'execution.succeeded', 'execution.failed', 'execution.unknown') AS touches
      FROM cfg
      ${sealsAfterCursorSql("cfg", input.batch)}
      JOIN "AuditEvent" e ON e.id = s."eventId"
    ),
    per_action AS (
      SELECT "tenantId", "actionId", bool_or(opens) AS opens
      FROM leaves WHERE touches AND "actionId" IS NOT NULL GROUP BY "tenantId", "actionId"
    ),
    due AS (
      INSERT INTO "SlackMessage" (id, "tenantId", "actionId", "wantedSeq", "giveUpAt")
      SELECT gen_random_uuid(), p."tenantId", p."actionId", 1, now() + make_interval(secs => ${input.retryWindowSeconds})
      FROM per_action p
      WHERE p.opens OR EXISTS (SELECT 1 FROM "SlackMessage" m WHERE m."actionId" = p."actionId" AND m."tenantId" = p."tenantId")
      ON CONFLICT ("actionId") DO UPDATE SET "wantedSeq" = "SlackMessage"."wantedSeq" + 1, status = 'pending',
        attempts = 0, "nextAttemptAt" = now(), "giveUpAt" = EXCLUDED."giveUpAt", "updatedAt" = now()
      WHERE "SlackMessage"."tenantId" = EXCLUDED."tenantId"
      RETURNING 1
    ),
    notices AS (
      INSERT INTO "SlackNotice" (id, "tenantId", "actionId", "auditSeq", revision, channel, role, "afterSeconds", "giveUpAt")
      SELECT gen_random_uuid(), l."tenantId", l."actionId", l.seq, (l.data->>'revision')::int, l.data->>'channel', l.data->>'role',
        (l.data->>'afterSeconds')::int, now() + make_interval(secs => ${input.retryWindowSeconds})
      FROM leaves l
      WHERE l.type = 'action.escalated' AND l."actionId" IS NOT NULL AND l.data ? 'channel'
      ON CONFLICT ("tenantId", "auditSeq") DO NOTHING
      RETURNING 1
    ),
    moved AS (
      UPDATE "SlackIntegration" i SET "cursorSeq" = m.seq
      FROM (SELECT "tenantId", max(seq) AS seq FROM leaves GROUP BY "tenantId") m
      WHERE i."tenantId" = m."tenantId"
    )
    SELECT ((SELECT count(*) FROM due) + (SELECT count(*) FROM notices))::int AS due`);
  return row?.due ?? 0;
}
