import type { Db } from "@/lib/db/client";
import { auditBodyOf, auditTemplateOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { deleteWebhookEndpoint } from "@/lib/db/statements/notifications/delete-webhook-endpoint";
import { resendOutboxDelivery } from "@/lib/db/statements/outbox/resend-outbox-delivery";
import { rotateWebhookSecret } from "@/lib/db/statements/notifications/rotate-webhook-secret";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { lockWebhookEndpoint } from "@/lib/db/statements/notifications/lock-webhook-endpoint";
import { sqlTransaction } from "@/lib/db/sql";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";
import { newWebhookSecret } from "@/lib/webhooks/sign-webhook";
import { openWebhookSecrets, sealWebhookSecrets } from "@/lib/webhooks/webhook-secrets";
import { webhookSettings } from "@/lib/webhooks/webhook-settings";
import { refuseWebhookAct } from "@/lib/webhooks/refuse-webhook-act";
import { WEBHOOK_CHANNEL, webhookChannel } from "@/lib/webhooks/webhook-channel";

/** Each act is written only by an admin now (admin-rules.ts); one no longer an admin is refused (403, audited). */
type Target = { tenantId: string; id: string; actor: AuditActor & { type: "user"; id: string } };

const notFound = () => new AppError("not_found", "That webhook endpoint was not found.", 404);

async function endpointOf(db: Db, input: Target) {
  if (!isUuid(input.id)) throw notFound();
  const endpoint = await db.webhookEndpoint.findFirst({ where: { id: input.id, tenantId: input.tenantId }, select: { url: true, secrets: true } });
  if (!endpoint) throw notFound();
  return endpoint;
}

/**
 * A new signing secret, returned once; the old one signs beside it for a day so receivers switch
 * without missing a delivery. The row is locked from reading the current secret to the write: of
 * two rotations at once, the second keeps the first's new secret as previous.
 */
export async function rotateWebhookEndpointSecret(db: Db, input: Target): Promise<{ secret: string; previousValidUntil: Date | null }> {
  if (!isUuid(input.id)) throw notFound();
  const secret = newWebhookSecret();
  const { rotationOverlapSeconds } = webhookSettings();
  const rotation = await sqlTransaction(db, async (tx) => {
    // The admin's membership before the endpoint (lock-acting-membership.ts).
    await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.actor.id, sessionId: null });
    const endpoint = await lockWebhookEndpoint(tx, { tenantId: input.tenantId, endpointId: input.id });
    if (!endpoint) throw notFound();
    let previous: string | undefined;
    try {
      previous = openWebhookSecrets(endpoint.secrets, input.tenantId, input.id).current;
    } catch {
      previous = undefined; // unreadable (the console's key changed): the new secret alone signs
    }
    const rotated = await rotateWebhookSecret(tx, {
      tenantId: input.tenantId, endpointId: input.id, byUserId: input.actor.id, overlapSeconds: previous ? rotationOverlapSeconds : 0,
      secrets: sealWebhookSecrets({ current: secret, ...(previous ? { previous } : {}) }, input.tenantId, input.id),
      event: auditTemplateOf({
        tenantId: input.tenantId, actor: input.actor, type: "webhook.secret_rotated", outcome: "ok", subject: { type: "webhook", id: input.id },
        data: { url: endpoint.url },
      }, ["previousValidUntil"]),
    });
    if (!rotated.rotated && rotated.refusal === "not_found") throw notFound();
    return { ...rotated, url: endpoint.url };
  });
  if (!rotation.rotated) {
    throw await refuseWebhookAct(db, { tenantId: input.tenantId, actor: input.actor, subject: { type: "webhook", id: input.id }, url: rotation.url, operation: "rotate" });
  }
  void requestSeal(db, input.tenantId);
  return { secret, previousValidUntil: rotation.previousValidUntil };
}

/** Removes the endpoint and its outbox (nothing more is sent to it). */
export async function removeWebhookEndpoint(db: Db, input: Target): Promise<void> {
  const endpoint = await endpointOf(db, input);
  const removed = await deleteWebhookEndpoint(db, {
    tenantId: input.tenantId, endpointId: input.id, channel: WEBHOOK_CHANNEL, byUserId: input.actor.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "webhook.endpoint_removed", outcome: "ok", subject: { type: "webhook", id: input.id },
      data: { url: endpoint.url },
    }),
  });
  if (!removed.removed && removed.refusal === "not_admin") {
    throw await refuseWebhookAct(db, { tenantId: input.tenantId, actor: input.actor, subject: { type: "webhook", id: input.id }, url: endpoint.url, operation: "remove" });
  }
  if (!removed.removed) throw notFound();
  void requestSeal(db, input.tenantId);
}

/** Sends a delivered or failed delivery again (same `webhook-id`), with a fresh retry window. */
export async function redeliverWebhookDelivery(db: Db, input: Target): Promise<void> {
  const notFound = () => new AppError("not_found", "That delivery was not found.", 404);
  if (!isUuid(input.id)) throw notFound();
  const delivery = await db.outboxDelivery.findFirst({ where: { id: input.id, tenantId: input.tenantId, channel: WEBHOOK_CHANNEL }, select: { payload: true, subscriptionId: true } });
  if (!delivery) throw notFound();
  const payload = delivery.payload as { eventType?: string; messageId?: string };
  const endpoint = await db.webhookEndpoint.findFirst({ where: { id: delivery.subscriptionId, tenantId: input.tenantId }, select: { url: true } });
  const again = await resendOutboxDelivery(db, {
    tenantId: input.tenantId, deliveryId: input.id, channels: [WEBHOOK_CHANNEL], statuses: webhookChannel.resendable, byUserId: input.actor.id,
    retryWindowSeconds: webhookChannel.retry().windowSeconds,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "webhook.redelivered", outcome: "ok", subject: { type: "webhook_delivery", id: input.id },
      data: { deliveryId: input.id, eventType: payload.eventType ?? "", messageId: payload.messageId ?? "" },
    }),
  });
  if (!again.resent && again.refusal === "not_admin") {
    throw await refuseWebhookAct(db, {
      tenantId: input.tenantId, actor: input.actor, subject: { type: "webhook_delivery", id: input.id }, url: endpoint?.url ?? "", operation: "redeliver",
    });
  }
  if (!again.resent) throw new AppError("not_redeliverable", "That delivery is still being sent; it can be sent again once it is delivered or has failed.", 409);
  void requestSeal(db, input.tenantId);
}
