import type { Db } from "@/lib/db/client";
import { loadSlackActionState, type SlackActionRow } from "@/lib/db/statements/notifications/load-slack-action-state";
import type { LeasedOutboxRow } from "@/lib/db/statements/outbox/lease-outbox";
import type { RiskLevel } from "@/lib/risk/risk-tag";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Addressing, Channel, DeliveryFailure } from "@/lib/outbox/channel";
import { openSlackSecrets } from "@/lib/slack/slack-secrets";
import { slackSettings } from "@/lib/slack/slack-settings";

/** Who a Slack send goes to: the tenant's app (its bot token, channel and threshold) and the action as it is now. */
export type SlackRecipient = { botToken: string; channel: string; openOnlyFrom: RiskLevel; action: SlackActionRow };

/**
 * Each leased row with its tenant's Slack app and its action as they are now, or why it is skipped
 * (Slack disconnected, the action gone, or — `skip` — nothing left to say about it).
 */
export async function addressSlack(
  db: Db, rows: LeasedOutboxRow[], skip: (row: LeasedOutboxRow, action: SlackActionRow) => string | null | false,
): Promise<Array<Addressing<SlackRecipient>>> {
  return Promise.all(rows.map(async (row): Promise<Addressing<SlackRecipient>> => {
    const integration = await db.slackIntegration.findUnique({ where: { tenantId: row.tenantId } });
    if (!integration) return { row, skip: "Slack is no longer configured for this tenant." };
    const action = await loadSlackActionState(db, { tenantId: row.tenantId, actionId: String(row.payload.actionId) });
    if (!action) return { row, skip: "The action no longer exists." };
    const skipped = skip(row, action);
    if (skipped !== false) return { row, skip: skipped };
    try {
      const { botToken } = openSlackSecrets(integration.secrets, row.tenantId);
      return { row, recipient: { botToken, channel: integration.channel, openOnlyFrom: integration.openOnlyFrom, action } };
    } catch (error) {
      return { row, failure: { error: error instanceof Error ? error.message : "The Slack app's secrets could not be opened.", code: null } };
    }
  }));
}

/** A failed Web API call as the outbox stores it: @slack/web-api's message names Slack's error code, never the token. */
export function slackFailure(error: unknown): DeliveryFailure {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return {
    error: (error instanceof Error ? error.message : "The message could not be sent.").slice(0, 500),
    code: typeof data?.error === "string" ? data.error : null,
  };
}

// Slack's answers about the message itself: sending the same message again cannot change them.
const FINAL_SLACK_ERRORS = new Set(["invalid_blocks", "invalid_blocks_format", "msg_too_long", "no_text", "invalid_arguments", "too_many_attachments"]);

/** Whether a retry can change a Slack failure: all but the message's own faults (an outage, a bot not yet invited can pass). */
export function slackRetries(failure: DeliveryFailure): boolean {
  return !(typeof failure.code === "string" && FINAL_SLACK_ERRORS.has(failure.code));
}

/** What Slack's channels' SQL shares: they read the log, and send, only while the tenant's app is connected. */
export const SLACK_CHANNEL_SQL = {
  subscriptionLiveSql: Prisma.sql`EXISTS (SELECT 1 FROM "SlackIntegration" i WHERE i."tenantId" = c."tenantId")`,
  stillWantedSql: Prisma.sql`EXISTS (SELECT 1 FROM "SlackIntegration" i WHERE i."tenantId" = d."tenantId")`,
  afterCrash: "retry",
} as const;

/**
 * What else Slack's channels share: a row is done once sent or skipped, an admin sends a failed one
 * again, and they retry on Slack's own settings — all failures but the message's own faults.
 */
export const SLACK_CHANNEL_BASE = {
  cursors: "own",
  statusLabels: { sent: "done", skipped: "done" },
  resendable: ["failed"],
  retry: () => slackSettings().retry,
  params: () => ({}),
  enabled: () => true,
  retries: slackRetries,
} as const satisfies Partial<Channel<SlackRecipient, unknown>>;
