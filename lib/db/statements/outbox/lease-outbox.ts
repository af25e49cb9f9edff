import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { JsonObject } from "@/lib/canonical/json-value";

export type LeasedOutboxRow = {
  id: string;
  tenantId: string;
  subscriptionId: string;
  actionId: string | null;
  batchKey: string | null;
  auditSeq: string;
  payload: JsonObject;
  state: JsonObject | null;
  /** The version this lease answers: a send of it is recorded up to it. */
  version: string;
  attempts: number;
};

/**
 * Leases up to `limit` due messages of one channel to `workerId` for `leaseSeconds`, counting the
 * attempt (database clock, or `now`). Rows `SKIP LOCKED`; a batch (a member's digest) whole, by
 * one worker, under an advisory lock on its key. A lapsed lease makes a row due again unless its
 * send had begun and `afterCrash` is `unknown` (docs/DESIGN.md, "One outbox for every notification").
 */
export async function leaseOutbox(
  q: Queryable,
  input: { channel: string; workerId: string; leaseSeconds: number; limit: number; now: Date | null; afterCrash: "retry" | "unknown" },
): Promise<LeasedOutboxRow[]> {
  const due = (d: string) => Prisma.sql`${Prisma.raw(d)}.channel = ${input.channel} AND ${Prisma.raw(d)}.status = 'pending'
    AND ${Prisma.raw(d)}."nextAttemptAt" <= clock.now AND (${Prisma.raw(d)}."leaseExpiresAt" IS NULL OR ${Prisma.raw(d)}."leaseExpiresAt" < clock.now)
    AND (${Prisma.raw(d)}."sendingSince" IS NULL OR ${input.afterCrash} = 'retry')`;
  return query<LeasedOutboxRow>(q, Prisma.sql`
    WITH clock AS (SELECT COALESCE(${input.now}::timestamptz, now()) AS now),
    single AS (
      SELECT d.id FROM "OutboxDelivery" d, clock
      WHERE ${due("d")} AND d."batchKey" IS NULL
      ORDER BY d."nextAttemptAt", d."auditSeq" LIMIT ${input.limit}
      FOR UPDATE OF d SKIP LOCKED
    ),
    batches AS (
      SELECT k."batchKey" FROM clock, (
        SELECT DISTINCT d."batchKey" FROM "OutboxDelivery" d, clock WHERE ${due("d")} AND d."batchKey" IS NOT NULL LIMIT ${input.limit}
      ) k
      WHERE NOT EXISTS (SELECT 1 FROM "OutboxDelivery" held WHERE held."batchKey" = k."batchKey" AND held.status = 'pending' AND held."leaseExpiresAt" >= clock.now)
        AND pg_try_advisory_xact_lock(hashtextextended(k."batchKey", 0))
    )
    UPDATE "OutboxDelivery" d SET "leaseOwner" = ${input.workerId}, "leaseExpiresAt" = clock.now + make_interval(secs => ${input.leaseSeconds}),
      attempts = d.attempts + 1, "sendingSince" = NULL, "updatedAt" = now()
    FROM clock
    WHERE (d.id IN (SELECT id FROM single) OR d."batchKey" IN (SELECT "batchKey" FROM batches)) AND ${due("d")}
    RETURNING d.id, d."tenantId", d."subscriptionId", d."actionId", d."batchKey", d."auditSeq"::text AS "auditSeq", d.payload, d.state,
      d.version::text AS version, d.attempts`);
}
