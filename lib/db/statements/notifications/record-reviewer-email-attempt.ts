import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records how one email's attempt ended for the rows it carried (one, or a digest's several),
 * for those `workerId` still holds: sent, skipped (nothing left waiting to tell), due again after
 * `retryAfterSeconds`, or failed for good once that would pass their give-up time (database
 * clock). Returns how many rows it recorded (0: the lease was lost).
 */
export async function recordReviewerEmailAttempt(
  q: Queryable,
  input: { ids: string[]; workerId: string; outcome: "sent" | "skipped" | "retry"; error: string | null; retryAfterSeconds: number },
): Promise<number> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "ReviewerEmail" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "lastError" = ${input.error}::text,
      status = CASE WHEN ${input.outcome} = 'sent' THEN 'sent' WHEN ${input.outcome} = 'skipped' THEN 'skipped'
        WHEN now() + make_interval(secs => ${input.retryAfterSeconds}) > "giveUpAt" THEN 'failed' ELSE 'pending' END,
      "sentAt" = CASE WHEN ${input.outcome} = 'sent' THEN now() END,
      "nextAttemptAt" = now() + make_interval(secs => ${input.retryAfterSeconds})
    WHERE id = ANY (${input.ids}::uuid[]) AND "leaseOwner" = ${input.workerId}
    RETURNING id`);
  return rows.length;
}
