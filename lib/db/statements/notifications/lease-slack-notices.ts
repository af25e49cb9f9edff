import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type LeasedSlackNotice = {
  id: string;
  tenantId: string;
  actionId: string;
  revision: number;
  channel: string;
  role: string;
  afterSeconds: number;
  attempts: number;
};

/**
 * Leases up to `limit` due Slack notices to `workerId` for `leaseSeconds` (database clock),
 * counting the attempt. `SKIP LOCKED` shares them among any number of workers, so a notice is
 * never posted by two at once; a lapsed lease (a crashed worker) makes it due again.
 */
export async function leaseSlackNotices(q: Queryable, input: { workerId: string; leaseSeconds: number; limit: number }): Promise<LeasedSlackNotice[]> {
  return query<LeasedSlackNotice>(q, Prisma.sql`
    UPDATE "SlackNotice" n SET "leaseOwner" = ${input.workerId}, "leaseExpiresAt" = now() + make_interval(secs => ${input.leaseSeconds}),
      attempts = n.attempts + 1, "updatedAt" = now()
    WHERE n.id IN (
      SELECT due.id FROM "SlackNotice" due
      WHERE due.status = 'pending' AND due."nextAttemptAt" <= now() AND (due."leaseExpiresAt" IS NULL OR due."leaseExpiresAt" < now())
      ORDER BY due."nextAttemptAt" LIMIT ${input.limit}
      FOR UPDATE OF due SKIP LOCKED
    )
    RETURNING n.id, n."tenantId", n."actionId", n.revision, n.channel, n.role, n."afterSeconds", n.attempts`);
}
