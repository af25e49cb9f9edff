import type { DbTx } from "@/lib/db/client";

/** The tenant's endpoints (never their secrets) and its latest deliveries, for the admin page. */
export async function listWebhooks(db: DbTx, tenantId: string, deliveries = 50) {
  const [endpoints, recent] = await Promise.all([
    db.webhookEndpoint.findMany({
      where: { tenantId },
      select: { id: true, url: true, description: true, events: true, allowPrivate: true, previousSecretUntil: true, createdAt: true, disabledAt: true },
      orderBy: { createdAt: "desc" },
    }),
    db.webhookDelivery.findMany({
      where: { tenantId },
      select: {
        id: true, endpointId: true, messageId: true, eventType: true, status: true, attempts: true, nextAttemptAt: true,
        lastStatus: true, lastError: true, deliveredAt: true, createdAt: true, payload: true,
      },
      orderBy: { createdAt: "desc" },
      take: deliveries,
    }),
  ]);
  return { endpoints, deliveries: recent };
}
