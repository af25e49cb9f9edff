import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Lets the send of leased rows go, just before it: those of `ids` that `workerId` still holds on a
 * live lease, still pending and still wanted (`stillWantedSql` over `d`) are marked as being sent;
 * a row not returned is not sent. The mark turns a crash mid-send into `unknown` for a channel that
 * cannot honour a key (recordCutOffSends). Database clock, or `now`.
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
