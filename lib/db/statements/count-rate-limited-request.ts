import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Counts one request under `key` in its fixed window, in one atomic upsert: the window is aligned
 * to the database clock (every instance agrees where it starts), and a bucket from an earlier
 * window starts over at 1. Returns the count so far in this window, when the window ends, and
 * whole seconds until then (by the same clock).
 */
export async function countRateLimitedRequest(
  q: Queryable,
  input: { key: string; windowSeconds: number },
): Promise<{ count: number; resetAt: Date; retryAfter: number }> {
  const [row] = await query<{ count: number; resetAt: Date; retryAfter: number }>(q, Prisma.sql`
    WITH clock AS (
      SELECT now() AS now, to_timestamp(floor(extract(epoch FROM now()) / ${input.windowSeconds}) * ${input.windowSeconds}) AS window_start
    ),
    bumped AS (
      INSERT INTO "RateLimitBucket" (key, "windowStart", count)
      SELECT ${input.key}, window_start, 1 FROM clock
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN "RateLimitBucket"."windowStart" = EXCLUDED."windowStart" THEN "RateLimitBucket".count + 1 ELSE 1 END,
        "windowStart" = EXCLUDED."windowStart"
      RETURNING count, "windowStart"
    )
    SELECT bumped.count,
      bumped."windowStart" + make_interval(secs => ${input.windowSeconds}) AS "resetAt",
      ceil(extract(epoch FROM (bumped."windowStart" + make_interval(secs => ${input.windowSeconds}) - clock.now)))::int AS "retryAfter"
    FROM bumped, clock`);
  return row;
}
