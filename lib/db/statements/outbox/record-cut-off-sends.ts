import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * For a channel that cannot honour a key (SMTP): rows whose send began (claimOutboxSend) and whose
 * lease lapsed without an outcome become `unknown`, for a person to resolve, never re-sent blindly.
 * Database clock, or `now`. Returns how many.
 */
export async function recordCutOffSends(q: Queryable, input: { channel: string; now: Date | null }): Promise<number> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH clock AS (SELECT COALESCE(${input.now}::timestamptz, now()) AS now)
    UPDATE "OutboxDelivery" d SET status = 'unknown', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now(),
      "lastError" = 'The worker sending it stopped before recording the outcome: it may have been sent. Send it again only if it was not.'
    FROM clock
    WHERE d.channel = ${input.channel} AND d.status = 'pending' AND d."sendingSince" IS NOT NULL AND d."leaseExpiresAt" < clock.now
    RETURNING d.id`);
  return rows.length;
}
