import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type LeasedSlackMessage = {
  id: string;
  tenantId: string;
  actionId: string;
  channel: string | null;
  ts: string | null;
  /** The latest event this send answers: recorded as sent when it succeeds. */
  wantedSeq: string;
  attempts: number;
};

/**
 * Leases up to `limit` due message rows to `workerId` for `leaseSeconds` (database clock),
 * counting the attempt. One row per action, so an action's message is never posted twice at once;
 * `SKIP LOCKED` shares the outbox among any number of workers, and a lapsed lease (a crashed
 * worker) makes the row due again.
 */
export async function leaseSlackMessages(q: Queryable, input: { workerId: string; leaseSeconds: number; limit: number }): Promise<LeasedSlackMessage[]> {
  return query<LeasedSlackMessage>(q, Prisma.sql`
    UPDATE "SlackMessage" m SET "leaseOwner" = ${input.workerId}, "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds}),
      attempts = m.attempts + 1, "updatedAt" = now()
    WHERE m.id IN (
      SELECT due.id FROM "SlackMessage" due
      WHERE due.status = 'pending' AND due."nextAttemptAt" <= now() AND (due."leaseExpiresAt" IS NULL OR due."leaseExpiresAt" < now())
      ORDER BY due."nextAttemptAt" LIMIT ${input.limit}
      FOR UPDATE OF due SKIP LOCKED
    )
    RETURNING m.id, m."tenantId", m."actionId", m.channel, m.ts, m."wantedSeq"::text AS "wantedSeq", m.attempts`);
}
