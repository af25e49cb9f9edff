import type { KnownBlock } from "@slack/web-api";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { eventCaseSql } from "@/lib/db/statements/outbox/outbox-channel-sql";
import type { Channel } from "@/lib/outbox/channel";
import { outboxChannel } from "@/lib/outbox/pump-channel";
import { slackActionStateOf } from "@/lib/slack/slack-action-state";
import { slackClient } from "@/lib/slack/slack-client";
import { addressSlack, SLACK_CHANNEL_BASE, SLACK_CHANNEL_SQL, slackFailure, type SlackRecipient } from "@/lib/slack/slack-delivery";
import { renderSlackMessage } from "@/lib/slack/slack-message";
import { slackSettings } from "@/lib/slack/slack-settings";

export const SLACK_MESSAGE_CHANNEL = "slack_message";

type Message = { text: string; blocks: KnownBlock[] };

const posted = (state: Record<string, unknown> | null) =>
  typeof state?.ts === "string" && typeof state.channel === "string" ? { ts: state.ts, channel: state.channel } : null;

/**
 * The Slack message of an action waiting for review, one row per action: queued when it starts
 * waiting and due again at every later event about it, so the worker posts or updates the action as
 * it is at send time until it has caught up.
 */
const slackMessage: Channel<SlackRecipient, Message> = {
  sql: {
    channel: SLACK_MESSAGE_CHANNEL,
    eventSql: eventCaseSql({
      opens: `(e.type = 'action.proposed' AND e.status = 'pending') OR e.type = 'action.revised'`,
      touches: `e.type IN ('action.proposed', 'decision.recorded', 'action.expired', 'action.invalidated', 'action.cancelled', 'action.reopened',
        'action.reapproved', 'execution.succeeded', 'execution.failed', 'execution.unknown')`,
    }),
    deliveriesSql: Prisma.sql`
      SELECT p."tenantId", p."subscriptionId", p.seq AS "auditSeq", p."actionId", p."actionId"::text AS "dedupeKey", NULL::text AS "batchKey",
        now() AS "nextAttemptAt", jsonb_build_object('actionId', p."actionId") AS payload
      FROM (
        SELECT "tenantId", "subscriptionId", "actionId", max(seq) AS seq, bool_or(event = 'opens') AS opens
        FROM leaves WHERE event IS NOT NULL AND "actionId" IS NOT NULL GROUP BY "tenantId", "subscriptionId", "actionId"
      ) p
      WHERE p.opens OR EXISTS (SELECT 1 FROM "OutboxDelivery" x WHERE x.channel = ${SLACK_MESSAGE_CHANNEL} AND x."dedupeKey" = p."actionId"::text
        AND x."tenantId" = p."tenantId")`,
    onRepeat: "send_again",
    ...SLACK_CHANNEL_SQL,
  },
  ...SLACK_CHANNEL_BASE,

  // Nothing to say about an action never posted that no longer waits.
  address: (db: Db, rows) => addressSlack(db, rows, (row, action) => (!posted(row.state) && action.status !== "pending" ? null : false)),

  render([{ recipient }]) {
    return renderSlackMessage(slackActionStateOf(recipient.action), { consoleUrl: slackSettings().consoleUrl, openOnlyFrom: recipient.openOnlyFrom });
  },

  async deliver(message, [{ row, recipient }]) {
    const shown = { shownRevision: recipient.action.revision, shownStatus: recipient.action.status };
    try {
      const client = slackClient(recipient.botToken);
      const previous = posted(row.state);
      if (previous) {
        await client.chat.update({ channel: previous.channel, ts: previous.ts, text: message.text, blocks: message.blocks });
        return { ok: true, state: shown };
      }
      const sent = await client.chat.postMessage({ channel: recipient.channel, text: message.text, blocks: message.blocks, unfurl_links: false });
      if (!sent.ts || !sent.channel) return { ok: false, error: "Slack did not return the message's channel and ts.", code: null };
      return { ok: true, state: { channel: sent.channel, ts: sent.ts, ...shown } };
    } catch (error) {
      return { ok: false, ...slackFailure(error) };
    }
  },
};

export const slackMessageChannel = outboxChannel(slackMessage);
