import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records how a leased send ended, if `workerId` still holds the lease. Sent: the message's
 * channel and ts, what it shows, and `sentSeq` up to what the lease answered; the row is done
 * unless a later event made it due meanwhile. Failed: due again after `retryAfterSeconds`, or
 * failed for good once that would pass its give-up time (database clock). Null: the lease was lost.
 */
export async function recordSlackAttempt(
  q: Queryable,
  input: {
    id: string; workerId: string; wantedSeq: string; ok: boolean; error: string | null; retryAfterSeconds: number;
    channel: string | null; ts: string | null; shownRevision: number | null; shownStatus: string | null;
  },
): Promise<"done" | "pending" | "failed" | null> {
  const [row] = await query<{ status: "done" | "pending" | "failed" }>(q, Prisma.sql`
    UPDATE "SlackMessage" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now(), "lastError" = ${input.error}::text,
      channel = COALESCE(${input.channel}::text, channel), ts = COALESCE(${input.ts}::text, ts),
      "shownRevision" = CASE WHEN ${input.ok} THEN COALESCE(${input.shownRevision}::int, "shownRevision") ELSE "shownRevision" END,
      "shownStatus" = CASE WHEN ${input.ok} THEN COALESCE(${input.shownStatus}::text, "shownStatus") ELSE "shownStatus" END,
      "sentSeq" = CASE WHEN ${input.ok} THEN GREATEST("sentSeq", ${input.wantedSeq}::bigint) ELSE "sentSeq" END,
      status = CASE
        WHEN ${input.ok} AND "wantedSeq" <= ${input.wantedSeq}::bigint THEN 'done'
        WHEN ${input.ok} THEN 'pending'
        WHEN now() + make_interval(secs => ${input.retryAfterSeconds}) > "giveUpAt" THEN 'failed' ELSE 'pending' END,
      attempts = CASE WHEN ${input.ok} THEN 0 ELSE attempts END,
      "nextAttemptAt" = CASE WHEN ${input.ok} THEN now() ELSE now() + make_interval(secs => ${input.retryAfterSeconds}) END
    WHERE id = ${input.id}::uuid AND "leaseOwner" = ${input.workerId}
    RETURNING status`);
  return row?.status ?? null;
}
