import type { DbTx } from "@/lib/db/client";
import { countRateLimitedRequest } from "@/lib/db/statements/count-rate-limited-request";
import { readEnv } from "@/lib/env";

export type RateLimit = { limit: number; windowSeconds: number };
export type RateLimitResult = { allowed: boolean; count: number; limit: number; retryAfterSeconds: number; resetAt: Date };

/** Requests per key per window; COUNTERSIGN_API_RATE_LIMIT / COUNTERSIGN_API_RATE_WINDOW_SECONDS override. */
export function apiRateLimit(): RateLimit {
  return { limit: readEnv("COUNTERSIGN_API_RATE_LIMIT") ?? 120, windowSeconds: readEnv("COUNTERSIGN_API_RATE_WINDOW_SECONDS") ?? 60 };
}

/**
 * Counts one request against a fixed window in one atomic upsert, shared by every app instance.
 * The window is aligned to the database clock, so every instance agrees on where it starts.
 */
export async function consumeRateLimit(db: DbTx, key: string, rule: RateLimit = apiRateLimit()): Promise<RateLimitResult> {
  const row = await countRateLimitedRequest(db, { key, windowSeconds: rule.windowSeconds });
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
