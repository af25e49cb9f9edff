import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type LeasedReviewerEmail = {
  id: string; tenantId: string; actionId: string; revision: number; userId: string; toAddress: string;
  reason: "pending" | "escalated" | "expiry_warning" | "reopened"; mode: "immediate" | "digest"; attempts: number;
};

/**
 * Leases up to `limit` due outbox rows to `workerId` for `leaseSeconds`, counting the attempt,
 * by the database clock (or `now`, for tests that move time). `SKIP LOCKED`: any number of
 * workers share the outbox without sending a row twice at once; a lapsed lease (a crashed worker)
 * makes the row due again.
 */
export async function leaseReviewerEmails(
  q: Queryable,
  input: { workerId: string; leaseSeconds: number; limit: number; now: Date | null },
): Promise<LeasedReviewerEmail[]> {
  return query<LeasedReviewerEmail>(q, Prisma.sql`
    WITH clock AS (SELECT COALESCE(${input.now}::timestamptz, now()) AS now),
    due AS (
      SELECT e.id FROM "ReviewerEmail" e, clock
      WHERE e.status = 'pending' AND e."nextAttemptAt" <= clock.now AND (e."leaseExpiresAt" IS NULL OR e."leaseExpiresAt" < clock.now)
      ORDER BY e."nextAttemptAt", e."auditSeq" LIMIT ${input.limit}
      FOR UPDATE OF e SKIP LOCKED
    )
    UPDATE "ReviewerEmail" e SET "leaseOwner" = ${input.workerId},
      "leaseExpiresAt" = (SELECT now FROM clock) + make_interval(secs => ${input.leaseSeconds}), attempts = e.attempts + 1
    FROM due WHERE e.id = due.id
    RETURNING e.id, e."tenantId", e."actionId", e.revision, e."userId", e."toAddress", e.reason, e.mode::text AS mode, e.attempts`);
}
