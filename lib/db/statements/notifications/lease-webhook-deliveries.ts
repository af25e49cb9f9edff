import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type LeasedDelivery = {
  id: string;
  tenantId: string;
  endpointId: string;
  messageId: string;
  payload: unknown;
  attempts: number;
  url: string;
  allowPrivate: boolean;
  secrets: string;
  /** The previous secret still signs (a rotation's overlap has not ended). */
  previousValid: boolean;
};

/**
 * Leases up to `limit` due deliveries of enabled endpoints to `workerId` for `leaseSeconds`
 * (database clock), counting the attempt. `SKIP LOCKED`: any number of workers on any number of
 * instances share the outbox without sending one delivery twice at once; a lease that lapses
 * (a crashed worker) makes the delivery due again.
 */
export async function leaseWebhookDeliveries(
  q: Queryable,
  input: { workerId: string; leaseSeconds: number; limit: number },
): Promise<LeasedDelivery[]> {
  return query<LeasedDelivery>(q, Prisma.sql`
    UPDATE "WebhookDelivery" d SET "leaseOwner" = ${input.workerId}, "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds}),
      attempts = d.attempts + 1, "updatedAt" = now()
    FROM "WebhookEndpoint" e
    WHERE e.id = d."endpointId" AND d.id IN (
      SELECT due.id FROM "WebhookDelivery" due JOIN "WebhookEndpoint" live ON live.id = due."endpointId" AND live."disabledAt" IS NULL
      WHERE due.status = 'pending' AND due."nextAttemptAt" <= now() AND (due."leaseExpiresAt" IS NULL OR due."leaseExpiresAt" < now())
      ORDER BY due."nextAttemptAt", due."auditSeq" LIMIT ${input.limit}
      FOR UPDATE OF due SKIP LOCKED
    )
    RETURNING d.id, d."tenantId", d."endpointId", d."messageId", d.payload, d.attempts, e.url, e."allowPrivate", e.secrets,
      (e."previousSecretUntil" IS NOT NULL AND e."previousSecretUntil" > now()) AS "previousValid"`);
}
