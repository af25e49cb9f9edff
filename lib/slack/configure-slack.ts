import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { upsertSlackIntegration } from "@/lib/db/statements/notifications/upsert-slack-integration";
import { AppError, describeInvalid, markAudited } from "@/lib/errors";
import { RISK_LEVELS } from "@/lib/risk/risk-tag";
import { SLACK_CHANNEL_ID } from "@/lib/slack/slack-channel-id";
import { sealSlackSecrets } from "@/lib/slack/slack-secrets";
import { SLACK_MESSAGE_CHANNEL } from "@/lib/slack/slack-message-channel";
import { SLACK_NOTICE_CHANNEL } from "@/lib/slack/slack-notice-channel";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

export const ConfigureSlackSchema = z.strictObject({
  channel: z.string().trim().regex(SLACK_CHANNEL_ID, "Enter the channel's id (like C0123ABCD): in Slack, open the channel's details and copy it from the bottom."),
  openOnlyFrom: z.enum(RISK_LEVELS),
  /** Blank keeps the saved token and secret. */
  botToken: z.string().trim().max(300).refine((v) => v === "" || /^xoxb-[A-Za-z0-9-]+$/.test(v), "The bot token starts with xoxb- (OAuth & Permissions in the Slack app's settings).").default(""),
  signingSecret: z.string().trim().max(200).refine((v) => v === "" || /^[0-9a-f]{16,128}$/i.test(v), "The signing secret is the hex string under Basic Information → App Credentials.").default(""),
});

/**
 * Saves the tenant's Slack app: the channel, the risk from which messages offer Open only, and
 * (both together) the bot token and signing secret, sealed. Admin now only; audited, refusals too.
 */
export async function configureSlack(db: Db, input: { tenantId: string; actor: AuditActor & { id: string }; fields: unknown }): Promise<void> {
  const parsed = ConfigureSlackSchema.safeParse(input.fields);
  if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error), 400);
  const { channel, openOnlyFrom, botToken, signingSecret } = parsed.data;
  if ((botToken === "") !== (signingSecret === "")) {
    throw new AppError("invalid_input", "Enter the bot token and the signing secret together (or leave both blank to keep the saved ones).", 400);
  }
  const secrets = botToken ? sealSlackSecrets({ botToken, signingSecret }, input.tenantId) : null;
  const saved = await upsertSlackIntegration(db, {
    tenantId: input.tenantId, channel, openOnlyFrom, secrets, cursorChannels: [SLACK_MESSAGE_CHANNEL, SLACK_NOTICE_CHANNEL], updatedById: input.actor.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "slack.configured", outcome: "ok", subject: { type: "slack", id: input.tenantId },
      data: { channel, openOnlyFrom, secretsChanged: secrets !== null },
    }),
  });
  if (!saved.saved && saved.refusal === "not_admin") {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "slack.configure_refused", outcome: "refused", subject: { type: "slack", id: input.tenantId },
      data: { channel, openOnlyFrom, reason: "not_admin" },
    });
    throw markAudited(noLongerAdmin("connect Slack"));
  }
  if (!saved.saved) throw new AppError("invalid_input", "Enter the Slack app's bot token and signing secret to connect it.", 400);
  void requestSeal(db, input.tenantId);
}
