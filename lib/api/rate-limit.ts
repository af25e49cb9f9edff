import type { DbTx } from "@/lib/db/client";

export type RateLimit = { limit: number; windowSeconds: number };
export type RateLimitResult = { allowed: boolean; count: number; limit: number; retryAfterSeconds: number; resetAt: Date };

/** Requests per key per window; COUNTERSIGN_API_RATE_LIMIT / COUNTERSIGN_API_RATE_WINDOW_SECONDS override. */
export function apiRateLimit(): RateLimit {
  const limit = Number(process.env.COUNTERSIGN_API_RATE_LIMIT ?? 120);
  const windowSeconds = Number(process.env.COUNTERSIGN_API_RATE_WINDOW_SECONDS ?? 60);
  return {
    limit: Number.isInteger(limit) && limit > 0 ? limit : 120,
    windowSeconds: Number.isInteger(windowSeconds) && windowSeconds > 0 ? windowSeconds : 60,
  };
}

/**
 * Counts one request against a fixed window in one atomic upsert, shared by every app instance.
 * The window is aligned to the database clock, so every instance agrees on where it starts.
 */
export async function consumeRateLimit(db: DbTx, key: string, rule: RateLimit = apiRateLimit()): Promise<RateLimitResult> {
  const [row] = await db.$queryRaw<Array<{ count: number; resetAt: Date; retryAfter: number }>>`
    WITH clock AS (
      SELECT now() AS now, to_timestamp(floor(extract(epoch FROM now()) / ${rule.windowSeconds}) * ${rule.windowSeconds}) AS window_start
    ),
    bumped AS (
      INSERT INTO "RateLimitBucket" (key, "windowStart", count)
      SELECT ${key}, window_start, 1 FROM clock
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN "RateLimitBucket"."windowStart" = EXCLUDED."windowStart" THEN "RateLimitBucket".count + 1 ELSE 1 END,
        "windowStart" = EXCLUDED."windowStart"
      RETURNING count, "windowStart"
    )
    SELECT bumped.count,
      bumped."windowStart" + make_interval(secs => ${rule.windowSeconds}) AS "resetAt",
      ceil(extract(epoch FROM (bumped."windowStart" + make_interval(secs => ${rule.windowSeconds}) - clock.now)))::int AS "retryAfter"
    FROM bumped, clock`;
  return {
    allowed: row.count <= rule.limit,
    count: row.count,
    limit: rule.limit,
    retryAfterSeconds: Math.max(1, row.retryAfter),
    resetAt: row.resetAt,
  };
}

export function apiKeyRateLimitKey(apiKeyId: string): string {
  return `api-key:${apiKeyId}`;
}
