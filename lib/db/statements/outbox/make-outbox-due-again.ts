import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Makes a message kept up to date due for a fresh send now (a Slack message after a vote from it
 * was refused as stale): a later version, pending, its backoff restarted, its window at least
 * `minWindowSeconds` from now.
 */
export async function makeOutboxDueAgain(
  q: Queryable,
  input: { tenantId: string; channel: string; dedupeKey: string; minWindowSeconds: number },
): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "OutboxDelivery" SET version = version + 1, status = 'pending', attempts = 0, "nextAttemptAt" = now(), "updatedAt" = now(),
      "giveUpAt" = GREATEST("giveUpAt", now() + make_interval(secs => ${input.minWindowSeconds}))
    WHERE channel = ${input.channel} AND "dedupeKey" = ${input.dedupeKey} AND "tenantId" = ${input.tenantId}::uuid`);
}
