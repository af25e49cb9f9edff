import type { DbTx } from "@/lib/db/client";
import { listOutboxDeliveries } from "@/lib/outbox/list-outbox-deliveries";
import { webhookChannel } from "@/lib/webhooks/webhook-channel";

/** The tenant's endpoints (never their secrets) and its latest deliveries, for the admin page. */
export async function listWebhooks(db: DbTx, tenantId: string, deliveries = 50) {
  const [endpoints, recent] = await Promise.all([
    db.webhookEndpoint.findMany({
      where: { tenantId },
      select: { id: true, url: true, description: true, events: true, allowPrivate: true, previousSecretUntil: true, createdAt: true, disabledAt: true },
      orderBy: { createdAt: "desc" },
    }),
    listOutboxDeliveries(db, { tenantId, channels: [webhookChannel], take: deliveries }),
  ]);
  return {
    endpoints,
    deliveries: recent.map((d) => ({
      id: d.id, endpointId: d.subscriptionId, messageId: String(d.payload.messageId ?? ""), eventType: String(d.payload.eventType ?? ""),
      status: d.status, resendable: d.resendable, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt,
      lastStatus: typeof d.state.httpStatus === "number" ? d.state.httpStatus : null, lastError: d.lastError, deliveredAt: d.sentAt,
      createdAt: d.createdAt, payload: d.payload.body ?? null,
    })),
  };
}
