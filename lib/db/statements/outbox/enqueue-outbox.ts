import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { hasSealAfterCursorSql, sealsAfterCursorSql } from "@/lib/db/statements/audit/audit-cursor-rules";
import type { OutboxChannelSql } from "@/lib/db/statements/outbox/outbox-channel-sql";

/**
 * A channel's producer, in one statement: for each of its cursors whose subscription still reads
 * and no other worker holds (`SKIP LOCKED`), the sealed leaves after it (up to `batch`) become the
 * channel's rows, unique per (channel, dedupeKey), and the cursor moves past them. Sealed leaves
 * are gapless: nothing committed is skipped, nothing refused is announced. Returns rows added.
 */
export async function enqueueOutbox(
  q: Queryable,
  input: { sql: OutboxChannelSql; batch: number; retryWindowSeconds: number; params: Record<string, string | number> },
): Promise<number> {
  const { sql } = input;
  const repeat = sql.onRepeat === "send_again"
    ? Prisma.sql`DO UPDATE SET version = d.version + 1, status = 'pending', attempts = 0, "nextAttemptAt" = EXCLUDED."nextAttemptAt",
        "giveUpAt" = EXCLUDED."giveUpAt", "auditSeq" = EXCLUDED."auditSeq", "updatedAt" = now()
      WHERE d."tenantId" = EXCLUDED."tenantId"`
    : Prisma.sql`DO NOTHING`;
  const [row] = await query<{ added: number }>(q, Prisma.sql`
    WITH params AS (SELECT ${JSON.stringify(input.params)}::jsonb AS v),
    cur AS (
      SELECT c."tenantId", c."subscriptionId", c."cursorSeq" FROM "OutboxCursor" c
      WHERE c.channel = ${sql.channel} AND ${hasSealAfterCursorSql("c")} AND ${sql.subscriptionLiveSql}
      FOR UPDATE OF c SKIP LOCKED
    ),
    leaves AS (
      SELECT cur."tenantId", cur."subscriptionId", s.seq, e.uid, e.at, e.type, e.status, e."actionId", e.tool, e."riskLevel"::text AS "riskLevel",
        e.verdict::text AS verdict, e.requester, e."subjectType", e."subjectId", e.data, ${sql.eventSql} AS event
      FROM cur
      ${sealsAfterCursorSql("cur", input.batch)}
      JOIN "AuditEvent" e ON e.id = s."eventId"
    ),
    wanted AS (${sql.deliveriesSql}),
    added AS (
      INSERT INTO "OutboxDelivery" AS d (id, "tenantId", channel, "subscriptionId", "auditSeq", "actionId", "dedupeKey", "batchKey", payload, "nextAttemptAt", "giveUpAt")
      SELECT gen_random_uuid(), w."tenantId", ${sql.channel}, w."subscriptionId", w."auditSeq", w."actionId", w."dedupeKey", w."batchKey", w.payload,
        w."nextAttemptAt", w."nextAttemptAt" + make_interval(secs => ${input.retryWindowSeconds})
      FROM wanted w
      ON CONFLICT (channel, "dedupeKey") ${repeat}
      RETURNING 1
    ),
    moved AS (
      UPDATE "OutboxCursor" c SET "cursorSeq" = m.seq, "updatedAt" = now()
      FROM (SELECT "subscriptionId", max(seq) AS seq FROM leaves GROUP BY "subscriptionId") m
      WHERE c.channel = ${sql.channel} AND c."subscriptionId" = m."subscriptionId"
    )
    SELECT count(*)::int AS added FROM added`);
  return row?.added ?? 0;
}
