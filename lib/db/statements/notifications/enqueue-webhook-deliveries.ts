import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { hasSealAfterCursorSql, sealsAfterCursorSql } from "@/lib/db/statements/audit/audit-cursor-rules";
import { WEBHOOK_EVENT_SOURCES, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/webhook-events";

// The audit event's webhook type, or NULL: built from the literal conditions in webhook-events.ts.
const WEBHOOK_TYPE = Prisma.raw(
  `CASE ${WEBHOOK_EVENT_TYPES.map((type) => `WHEN ${WEBHOOK_EVENT_SOURCES[type]} THEN '${type}'`).join(" ")} END`,
);

/**
 * The outbox's producer, in one statement: for each enabled endpoint not being handled by another
 * worker (`SKIP LOCKED`), the tenant's sealed leaves after its cursor (up to `batch`), those whose
 * audit event raises a type it subscribes to become deliveries (unique per endpoint and leaf, so
 * a repeated pass adds nothing), and the cursor moves past every leaf read. The leaves are the
 * tenant's gapless, append-only tree: nothing committed is skipped, and an event sealing refused
 * is never announced. Returns the number of deliveries added.
 */
export async function enqueueWebhookDeliveries(
  q: Queryable,
  input: { consoleUrl: string; retryWindowSeconds: number; batch: number },
): Promise<number> {
  const [row] = await query<{ added: number }>(q, Prisma.sql`
    WITH ep AS (
      SELECT e.id, e."tenantId", e.events, e."cursorSeq", t.slug FROM "WebhookEndpoint" e JOIN "Tenant" t ON t.id = e."tenantId"
      WHERE e."disabledAt" IS NULL
        AND ${hasSealAfterCursorSql("e")}
      FOR UPDATE OF e SKIP LOCKED
    ),
    leaves AS (
      SELECT ep.id AS "endpointId", ep."tenantId", ep.events, ep.slug, s.seq, e.uid, e.at, e."actionId", e.tool, e.status,
        e."riskLevel"::text AS "riskLevel", e.verdict::text AS verdict, e.requester, e."subjectType", e."subjectId",
        ${WEBHOOK_TYPE} AS "webhookType"
      FROM ep
      ${sealsAfterCursorSql("ep", input.batch)}
      JOIN "AuditEvent" e ON e.id = s."eventId"
    ),
    added AS (
      INSERT INTO "WebhookDelivery" (id, "tenantId", "endpointId", "messageId", "eventType", "auditSeq", payload, "giveUpAt")
      SELECT gen_random_uuid(), l."tenantId", l."endpointId", 'msg_' || l.uid::text, l."webhookType", l.seq,
        jsonb_build_object(
          'type', l."webhookType",
          'timestamp', to_char(l.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'data', jsonb_strip_nulls(jsonb_build_object(
            'tenant', l.slug, 'actionId', l."actionId", 'taskId', CASE WHEN l."subjectType" = 'task' THEN l."subjectId" END,
            'tool', l.tool, 'status', l.status, 'verdict', l.verdict, 'riskLevel', l."riskLevel", 'requester', l.requester,
            'url', CASE
              WHEN l."actionId" IS NOT NULL THEN ${input.consoleUrl} || '/actions/' || l."actionId"::text
              WHEN l."subjectType" = 'task' THEN ${input.consoleUrl} || '/tasks/' || l."subjectId"
            END,
            'auditEventId', l.uid::text, 'auditSeq', l.seq))),
        now() + make_interval(secs => ${input.retryWindowSeconds})
      FROM leaves l
      WHERE l."webhookType" = ANY (l.events)
      ON CONFLICT ("endpointId", "auditSeq") DO NOTHING
      RETURNING 1
    ),
    moved AS (
      UPDATE "WebhookEndpoint" e SET "cursorSeq" = m.seq
      FROM (SELECT "endpointId", max(seq) AS seq FROM leaves GROUP BY "endpointId") m
      WHERE e.id = m."endpointId"
    )
    SELECT count(*)::int AS added FROM added`);
  return row?.added ?? 0;
}
