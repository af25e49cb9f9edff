import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Lets the send of these leased rows go, immediately before it: of `ids`, those `workerId` still
 * holds on a live lease, still pending, and still wanted by the channel's rule (`stillWantedSql`
 * over `d`: the endpoint not removed, the member still asked), are marked as being sent. A row
 * not returned is not sent. The mark is what turns a crash mid-send into `unknown` for a channel
 * that cannot honour a key (recordCutOffSends). By the database clock, or `now`.
 */
export async function claimOutboxSend(
  q: Queryable,
  input: { ids: string[]; workerId: string; now: Date | null; stillWantedSql: Sql },
): Promise<Set<string>> {
  if (input.ids.length === 0) return new Set();
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH clock AS (SELECT COALESCE(${input.now}::timestamptz, now()) AS now)
    UPDATE "OutboxDelivery" d SET "sendingSince" = clock.now, "updatedAt" = now()
    FROM clock
    WHERE d.id = ANY (${input.ids}::uuid[]) AND d."leaseOwner" = ${input.workerId} AND d."leaseExpiresAt" > clock.now AND d.status = 'pending'
      AND ${input.stillWantedSql}
    RETURNING d.id::text AS id`);
  return new Set(rows.map((row) => row.id));
}
