import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { readWebhookEndpointsForSend } from "@/lib/db/statements/notifications/read-webhook-endpoints-for-send";
import { eventCaseSql } from "@/lib/db/statements/outbox/outbox-channel-sql";
import type { Channel, PumpResult } from "@/lib/outbox/channel";
import { outboxChannel } from "@/lib/outbox/pump-channel";
import { checkDestination, type Destination } from "@/lib/webhooks/destination-guard";
import { sendWebhook } from "@/lib/webhooks/send-webhook";
import { signWebhook, type WebhookHeaders } from "@/lib/webhooks/sign-webhook";
import { WEBHOOK_EVENT_SOURCES } from "@/lib/webhooks/webhook-events";
import { openWebhookSecrets } from "@/lib/webhooks/webhook-secrets";
import { webhookSettings } from "@/lib/webhooks/webhook-settings";

export const WEBHOOK_CHANNEL = "webhook";

type Recipient = { destination: Destination; secrets: string[]; messageId: string; body: unknown };
type Message = { destination: Destination; body: string; headers: WebhookHeaders };

/**
 * Webhooks: each subscribed audit event is one signed POST, retried under one `webhook-id`
 * receivers dedupe by, so a send cut off by a crash is simply tried again. A removed endpoint is
 * not sent to (the claim re-checks it); a 410 Gone is not retried.
 */
const webhook: Channel<Recipient, Message> = {
  sql: {
    channel: WEBHOOK_CHANNEL,
    eventSql: eventCaseSql(WEBHOOK_EVENT_SOURCES),
    deliveriesSql: Prisma.sql`
      SELECT l."tenantId", l."subscriptionId", l.seq AS "auditSeq", l."actionId", l."subscriptionId"::text || ':' || l.seq::text AS "dedupeKey",
        NULL::text AS "batchKey", now() AS "nextAttemptAt",
        jsonb_build_object('messageId', 'msg_' || l.uid::text, 'eventType', l.event, 'body', jsonb_build_object(
          'type', l.event,
          'timestamp', to_char(l.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'data', jsonb_strip_nulls(jsonb_build_object(
            'tenant', t.slug, 'actionId', l."actionId", 'taskId', CASE WHEN l."subjectType" = 'task' THEN l."subjectId" END,
            'tool', l.tool, 'status', l.status, 'verdict', l.verdict, 'riskLevel', l."riskLevel", 'requester', l.requester,
            'url', CASE
              WHEN l."actionId" IS NOT NULL THEN (p.v->>'consoleUrl') || '/actions/' || l."actionId"::text
              WHEN l."subjectType" = 'task' THEN (p.v->>'consoleUrl') || '/tasks/' || l."subjectId"
            END,
            'auditEventId', l.uid::text, 'auditSeq', l.seq)))) AS payload
      FROM leaves l CROSS JOIN params p
      JOIN "WebhookEndpoint" w ON w.id = l."subscriptionId"
      JOIN "Tenant" t ON t.id = l."tenantId"
      WHERE l.event = ANY (w.events)`,
    subscriptionLiveSql: Prisma.sql`EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w.id = c."subscriptionId" AND w."disabledAt" IS NULL)`,
    stillWantedSql: Prisma.sql`EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w.id = d."subscriptionId" AND w."tenantId" = d."tenantId" AND w."disabledAt" IS NULL)`,
    onRepeat: "ignore",
    afterCrash: "retry",
  },
  cursors: "own",
  statusLabels: { sent: "delivered" },
  resendable: ["sent", "failed"],
  retry: () => webhookSettings().retry,
  params: () => ({ consoleUrl: webhookSettings().consoleUrl }),
  enabled: () => true,

  async address(db: Db, rows) {
    const endpoints = new Map((await readWebhookEndpointsForSend(db, { ids: [...new Set(rows.map((row) => row.subscriptionId))] })).map((e) => [e.id, e]));
    return Promise.all(rows.map(async (row) => {
      const endpoint = endpoints.get(row.subscriptionId);
      if (!endpoint || endpoint.tenantId !== row.tenantId) return { row, skip: "The endpoint was removed." };
      try {
        const secrets = openWebhookSecrets(endpoint.secrets, endpoint.tenantId, endpoint.id);
        const checked = await checkDestination(endpoint.url, { allowPrivate: endpoint.allowPrivate });
        if (!checked.ok) return { row, failure: { error: checked.reason, code: null } };
        return {
          row, recipient: {
            destination: checked.destination, messageId: String(row.payload.messageId), body: row.payload.body,
            secrets: endpoint.previousValid && secrets.previous ? [secrets.current, secrets.previous] : [secrets.current],
          },
        };
      } catch (error) {
        return { row, failure: { error: error instanceof Error ? error.message : "The delivery could not be prepared.", code: null } };
      }
    }));
  },

  render([{ recipient }]) {
    const body = JSON.stringify(recipient.body);
    const headers = signWebhook({ id: recipient.messageId, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: recipient.secrets });
    return { destination: recipient.destination, body, headers };
  },

  async deliver(message) {
    const sent = await sendWebhook(message.destination, message.body, message.headers, webhookSettings().timeoutMs);
    const state = { httpStatus: sent.status };
    return sent.ok ? { ok: true, state } : { ok: false, state, error: sent.error ?? `HTTP ${sent.status}`, code: sent.status };
  },

  retries: (failure) => failure.code !== 410,
};

export const webhookChannel = outboxChannel(webhook);

/** One pass of the webhook outbox (as its worker runs it): queue newly sealed events, send what is due. */
export function pumpWebhooks(db: Db, options: { workerId: string; limit?: number }): Promise<PumpResult> {
  return webhookChannel.pump(db, options);
}
