import type { OutboxChannel } from "@/lib/outbox/channel";
import { reviewerEmailChannel } from "@/lib/notifications/reviewer-email-channel";
import { slackMessageChannel } from "@/lib/slack/slack-message-channel";
import { slackNoticeChannel } from "@/lib/slack/slack-notice-channel";
import { webhookChannel } from "@/lib/webhooks/webhook-channel";

/**
 * Every notification channel the outbox workers run (lib/outbox/channel.ts): adding one is its
 * folder and a line here.
 */
export const REGISTERED_CHANNELS: readonly OutboxChannel[] = [webhookChannel, reviewerEmailChannel, slackMessageChannel, slackNoticeChannel];
