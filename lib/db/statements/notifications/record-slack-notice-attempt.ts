import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records how a leased notice's send ended, if `workerId` still holds the lease. Sent (or
 * nothing left to say): done, with the posted message's ts. Failed: due again after
 * `retryAfterSeconds`, or failed for good once that would pass its give-up time (database clock).
 * Null: the lease was lost, and the row is left to whoever holds it now.
 */
export async function recordSlackNoticeAttempt(
  q: Queryable,
  input: { id: string; workerId: string; ok: boolean; error: string | null; ts: string | null; retryAfterSeconds: number },
): Promise<"done" | "pending" | "failed" | null> {
  const [row] = await query<{ status: "done" | "pending" | "failed" }>(q, Prisma.sql`
    UPDATE "SlackNotice" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now(), "lastError" = ${input.error}::text,
      ts = COALESCE(${input.ts}::text, ts),
      status = CASE
        WHEN ${input.ok} THEN 'done'
        WHEN now() + make_interval(secs => ${input.retryAfterSeconds}) > "giveUpAt" THEN 'failed' ELSE 'pending' END,
      "nextAttemptAt" = CASE WHEN ${input.ok} THEN "nextAttemptAt" ELSE now() + make_interval(secs => ${input.retryAfterSeconds}) END
    WHERE id = ${input.id}::uuid AND "leaseOwner" = ${input.workerId} AND status = 'pending'
    RETURNING status`);
  return row?.status ?? null;
}
