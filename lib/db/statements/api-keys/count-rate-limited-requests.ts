import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type RateLimitedRequests = { key: string; requests: number; windowSeconds: number };
export type RateLimitBucketState = { key: string; count: number; resetAt: Date; databaseNow: Date };

/**
 * Adds one process's counts to the shared fixed-window counters of their keys in one upsert, each
 * window aligned to the database clock so every instance agrees. Returns per key the count in its
 * window (every instance's), the window's end and the database's now. Keys must be distinct: rows
 * are locked in key order, so two instances never deadlock.
 */
export async function countRateLimitedRequests(q: Queryable, input: { counts: RateLimitedRequests[] }): Promise<RateLimitBucketState[]> {
  const counts = [...input.counts].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return query<RateLimitBucketState>(q, Prisma.sql`
    WITH clock AS (SELECT now() AS now),
    input AS (
      SELECT x.key, x.requests, x.window_seconds, x.ord,
        to_timestamp(floor(extract(epoch FROM clock.now) / x.window_seconds) * x.window_seconds) AS window_start
      FROM unnest(${counts.map((c) => c.key)}::text[], ${counts.map((c) => c.requests)}::int[], ${counts.map((c) => c.windowSeconds)}::int[])
        WITH ORDINALITY AS x(key, requests, window_seconds, ord), clock
    ),
    bumped AS (
      INSERT INTO "RateLimitBucket" (key, "windowStart", count)
      SELECT key, window_start, requests FROM input ORDER BY ord
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN "RateLimitBucket"."windowStart" = EXCLUDED."windowStart" THEN "RateLimitBucket".count + EXCLUDED.count ELSE EXCLUDED.count END,
        "windowStart" = EXCLUDED."windowStart"
      RETURNING key, count, "windowStart"
    )
    SELECT bumped.key, bumped.count, bumped."windowStart" + make_interval(secs => input.window_seconds) AS "resetAt", clock.now AS "databaseNow"
    FROM bumped JOIN input USING (key), clock`);
}
