import type { Db, DbTx } from "@/lib/db/client";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";
import { resendOutboxDelivery } from "@/lib/db/statements/outbox/resend-outbox-delivery";
import { isUuid } from "@/lib/db/uuid";
import { AppError, markAudited } from "@/lib/errors";
import { listOutboxDeliveries } from "@/lib/outbox/list-outbox-deliveries";
import { SLACK_MESSAGE_CHANNEL, slackMessageChannel } from "@/lib/slack/slack-message-channel";
import { SLACK_NOTICE_CHANNEL, slackNoticeChannel } from "@/lib/slack/slack-notice-channel";
import { slackSettings } from "@/lib/slack/slack-settings";

export type FailedSlackDelivery = { id: string; kind: "message" | "notice"; actionId: string | null; channel: string | null; lastError: string | null; updatedAt: Date };

const kindOf = (channel: string) => (channel === SLACK_NOTICE_CHANNEL ? "notice" : "message");

/** The tenant's Slack messages and escalation notices whose retries ended (newest first), for the admin page. */
export async function listFailedSlackDeliveries(db: DbTx, tenantId: string, take = 10): Promise<FailedSlackDelivery[]> {
  const rows = await listOutboxDeliveries(db, { tenantId, channels: [slackMessageChannel, slackNoticeChannel], statuses: ["failed"], take });
  return rows.map((row) => ({
    id: row.id, kind: kindOf(row.channel), actionId: row.actionId, lastError: row.lastError, updatedAt: row.updatedAt,
    channel: typeof row.payload.channel === "string" ? row.payload.channel : null,
  }));
}

/**
 * An admin sends a failed Slack message or notice again, with a fresh retry window (a message shows
 * the action as it is then). Admin now only (admin-rules.ts); audited, refusals too.
 */
export async function resendSlackDelivery(db: Db, input: { tenantId: string; id: string; actor: AuditActor & { type: "user"; id: string } }): Promise<void> {
  const notFound = () => new AppError("not_found", "That Slack message was not found.", 404);
  if (!isUuid(input.id)) throw notFound();
  const row = await db.outboxDelivery.findFirst({
    where: { id: input.id, tenantId: input.tenantId, channel: { in: [SLACK_MESSAGE_CHANNEL, SLACK_NOTICE_CHANNEL] } }, select: { channel: true, actionId: true },
  });
  if (!row) throw notFound();
  const again = await resendOutboxDelivery(db, {
    tenantId: input.tenantId, deliveryId: input.id, channels: [row.channel], statuses: ["failed"], byUserId: input.actor.id,
    retryWindowSeconds: slackSettings().retry.windowSeconds,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "slack.resent", outcome: "ok", subject: { type: "slack", id: input.tenantId },
      actionId: row.actionId, data: { deliveryId: input.id, kind: kindOf(row.channel), actionId: row.actionId ?? "" },
    }),
  });
  if (!again.resent && again.refusal === "not_admin") {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "slack.resend_refused", outcome: "refused", subject: { type: "slack", id: input.tenantId },
      data: { deliveryId: input.id, reason: "not_admin" },
    });
    throw markAudited(noLongerAdmin("send Slack messages again"));
  }
  if (!again.resent) throw new AppError("not_resendable", "That Slack message is being sent; it can be sent again once it has failed.", 409);
  void requestSeal(db, input.tenantId);
}
