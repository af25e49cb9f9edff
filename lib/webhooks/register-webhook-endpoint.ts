import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { WEBHOOK_CHANNEL } from "@/lib/webhooks/webhook-channel";
import { insertWebhookEndpoint } from "@/lib/db/statements/notifications/insert-webhook-endpoint";
import { AppError, describeInvalid, markAudited } from "@/lib/errors";
import { checkDestination } from "@/lib/webhooks/destination-guard";
import { newWebhookSecret } from "@/lib/webhooks/sign-webhook";
import { sealWebhookSecrets } from "@/lib/webhooks/webhook-secrets";
import { WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/webhook-events";
import { refuseWebhookAct } from "@/lib/webhooks/refuse-webhook-act";

export const RegisterWebhookSchema = z.strictObject({
  url: z.string().trim().min(1, "Enter the endpoint's URL.").max(2000, "The URL is too long."),
  description: z.string().trim().max(200, "Keep the description under 200 characters.").default(""),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1, "Pick at least one event.").max(WEBHOOK_EVENT_TYPES.length),
  allowPrivate: z.boolean().default(false),
});

/**
 * Registers an endpoint whose URL passes the destination guard (a private host only if the admin
 * allows it). The signing secret is returned once and stored sealed. Admin now only; refusals audited.
 */
export async function registerWebhookEndpoint(
  db: Db,
  input: { tenantId: string; actor: AuditActor & { id: string }; fields: unknown },
): Promise<{ id: string; secret: string }> {
  const parsed = RegisterWebhookSchema.safeParse(input.fields);
  if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error), 400);
  const { url, description, events, allowPrivate } = parsed.data;
  const checked = await checkDestination(url, { allowPrivate });
  if (!checked.ok) {
    await appendAuditEvent(db, {
      tenantId: input.tenantId, actor: input.actor, type: "webhook.refused", outcome: "refused", subject: { type: "webhook", id: null },
      data: { url: url.slice(0, 500), reason: checked.reason },
    });
    throw markAudited(new AppError("webhook_destination_refused", checked.reason, 400));
  }
  const id = randomUUID();
  const secret = newWebhookSecret();
  const unique = [...new Set(events)];
  const written = await insertWebhookEndpoint(db, {
    id, tenantId: input.tenantId, cursorChannel: WEBHOOK_CHANNEL, url: checked.destination.url.href, description, events: unique, allowPrivate,
    secrets: sealWebhookSecrets({ current: secret }, input.tenantId, id), createdById: input.actor.id,
    event: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "webhook.endpoint_created", outcome: "ok", subject: { type: "webhook", id },
      data: { url: checked.destination.url.href, events: unique, allowPrivate },
    }),
  });
  if (!written) {
    throw await refuseWebhookAct(db, { tenantId: input.tenantId, actor: input.actor, subject: { type: "webhook", id: null }, url: checked.destination.url.href, operation: "register" });
  }
  void requestSeal(db, input.tenantId);
  return { id, secret };
}
