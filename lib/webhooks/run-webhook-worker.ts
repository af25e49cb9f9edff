import type { Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { enqueueWebhookDeliveries } from "@/lib/db/statements/notifications/enqueue-webhook-deliveries";
import { leaseWebhookDeliveries, type LeasedDelivery } from "@/lib/db/statements/notifications/lease-webhook-deliveries";
import { recordWebhookAttempt } from "@/lib/db/statements/notifications/record-webhook-attempt";
import { checkDestination } from "@/lib/webhooks/destination-guard";
import { sendWebhook } from "@/lib/webhooks/send-webhook";
import { signWebhook } from "@/lib/webhooks/sign-webhook";
import { openWebhookSecrets } from "@/lib/webhooks/webhook-secrets";
import { retryDelayMs, webhookSettings } from "@/lib/webhooks/webhook-settings";
import { runPumpLoop } from "@/lib/outbox/run-pump-loop";

/** The console's public URL, for the links in payloads. */
function consoleUrl(): string {
  return (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, "");
}

/** One attempt of one leased delivery: sign, re-check the destination, send, record. */
async function attempt(db: Db, workerId: string, delivery: LeasedDelivery): Promise<string | null> {
  const settings = webhookSettings();
  let outcome: { ok: boolean; status: number | null; error: string | null };
  try {
    const secrets = openWebhookSecrets(delivery.secrets, delivery.tenantId, delivery.endpointId);
    const checked = await checkDestination(delivery.url, { allowPrivate: delivery.allowPrivate });
    if (!checked.ok) {
      outcome = { ok: false, status: null, error: checked.reason };
    } else {
      const body = JSON.stringify(delivery.payload);
      const headers = signWebhook({
        id: delivery.messageId, timestampSeconds: Math.floor(Date.now() / 1000), body,
        secrets: delivery.previousValid && secrets.previous ? [secrets.current, secrets.previous] : [secrets.current],
      });
      outcome = await sendWebhook(checked.destination, body, headers, settings.timeoutMs);
    }
  } catch (error) {
    outcome = { ok: false, status: null, error: error instanceof Error ? error.message : "The delivery could not be prepared." };
  }
  const retryAfterSeconds = retryDelayMs(delivery.attempts, settings.retryBaseMs) / 1000;
  return recordWebhookAttempt(db, {
    id: delivery.id, workerId, ok: outcome.ok, httpStatus: outcome.status, error: outcome.error?.slice(0, 500) ?? null, retryAfterSeconds,
  });
}

/**
 * One pass of the outbox: turn newly sealed audit events into deliveries, then send what is due
 * (up to `limit`, concurrently). Returns how many deliveries were added and attempted.
 */
export async function pumpWebhooks(db: Db, options: { workerId: string; limit?: number }): Promise<{ added: number; attempted: number }> {
  const settings = webhookSettings();
  const added = await enqueueWebhookDeliveries(db, { consoleUrl: consoleUrl(), retryWindowSeconds: settings.retryWindowSeconds, batch: 1000 });
  const leased = await leaseWebhookDeliveries(db, {
    workerId: options.workerId, leaseSeconds: Math.ceil(settings.timeoutMs / 1000) + 30, limit: options.limit ?? 16,
  });
  await Promise.all(leased.map((delivery) => attempt(db, options.workerId, delivery)));
  return { added, attempted: leased.length };
}

/**
 * The webhook worker: pumps the outbox every `pollMs` until the signal aborts. Every console and
 * every `npm run worker` runs one; leases keep them from sending a delivery twice at once, and a
 * delivery left leased by a crashed worker is due again when its lease lapses.
 */
export async function runWebhookWorker(options: { db: Db; signal?: AbortSignal; pollMs?: number; workerId?: string }): Promise<void> {
  await runPumpLoop({
    name: "webhooks", pollMs: options.pollMs ?? 1000, signal: options.signal, workerId: options.workerId,
    pump: (workerId) => pumpWebhooks(options.db, { workerId }),
  });
}
