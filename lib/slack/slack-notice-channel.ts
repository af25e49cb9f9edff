import type { KnownBlock } from "@slack/web-api";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { eventCaseSql } from "@/lib/db/statements/outbox/outbox-channel-sql";
import type { Channel, PumpResult } from "@/lib/outbox/channel";
import { outboxChannel } from "@/lib/outbox/pump-channel";
import { slackActionStateOf } from "@/lib/slack/slack-action-state";
import { slackClient } from "@/lib/slack/slack-client";
import { addressSlack, SLACK_CHANNEL_BASE, SLACK_CHANNEL_SQL, slackFailure, type SlackRecipient } from "@/lib/slack/slack-delivery";
import { renderSlackEscalation } from "@/lib/slack/slack-message";
import { slackMessageChannel } from "@/lib/slack/slack-message-channel";
import { slackSettings } from "@/lib/slack/slack-settings";

export const SLACK_NOTICE_CHANNEL = "slack_notice";

type Message = { channel: string; text: string; blocks: KnownBlock[] };

/**
 * A one-off Slack post, never updated: an escalation whose rule names a channel, posted once per
 * sealed leaf with an Open link only, if the action still waits at that revision.
 */
const slackNotice: Channel<SlackRecipient, Message> = {
  sql: {
    channel: SLACK_NOTICE_CHANNEL,
    eventSql: eventCaseSql({ escalated: `e.type = 'action.escalated' AND e.data ? 'channel'` }),
    deliveriesSql: Prisma.sql`
      SELECT l."tenantId", l."subscriptionId", l.seq AS "auditSeq", l."actionId", l."tenantId"::text || ':' || l.seq::text AS "dedupeKey",
        NULL::text AS "batchKey", now() AS "nextAttemptAt",
        jsonb_build_object('actionId', l."actionId", 'revision', (l.data->>'revision')::int, 'channel', l.data->>'channel', 'role', l.data->>'role',
          'afterSeconds', (l.data->>'afterSeconds')::int) AS payload
      FROM leaves l WHERE l.event = 'escalated' AND l."actionId" IS NOT NULL`,
    onRepeat: "ignore",
    ...SLACK_CHANNEL_SQL,
  },
  ...SLACK_CHANNEL_BASE,

  address: (db: Db, rows) => addressSlack(db, rows, (row, action) =>
    action.status !== "pending" || action.revision !== Number(row.payload.revision) ? "The action no longer waits at the escalated revision." : false),

  render([{ row, recipient }]) {
    const rendered = renderSlackEscalation(slackActionStateOf(recipient.action), {
      role: String(row.payload.role), afterSeconds: Number(row.payload.afterSeconds), consoleUrl: slackSettings().consoleUrl,
    });
    return { channel: String(row.payload.channel), ...rendered };
  },

  async deliver(message, [{ recipient }]) {
    try {
      const sent = await slackClient(recipient.botToken).chat.postMessage({ channel: message.channel, text: message.text, blocks: message.blocks, unfurl_links: false });
      return sent.ts ? { ok: true, state: { ts: sent.ts } } : { ok: true };
    } catch (error) {
      return { ok: false, ...slackFailure(error) };
    }
  },
};

export const slackNoticeChannel = outboxChannel(slackNotice);

/** One pass of the Slack outbox (messages, then notices), as its workers run it. */
export async function pumpSlack(db: Db, options: { workerId: string; limit?: number }): Promise<PumpResult> {
  const messages = await slackMessageChannel.pump(db, options);
  const notices = await slackNoticeChannel.pump(db, options);
  return { added: messages.added + notices.added, attempted: messages.attempted + notices.attempted };
}
