import type { RetryPolicy } from "@/lib/outbox/channel";

/**
 * A channel's retry policy from its settings: the first retry's delay, how many minutes it is
 * retried, and how long one attempt may take — its lease outlasts that by half a minute.
 */
export function retryPolicy(input: { baseMs: number; windowMinutes: number; attemptMs: number }): RetryPolicy {
  return { baseMs: input.baseMs, windowSeconds: input.windowMinutes * 60, leaseSeconds: Math.ceil(input.attemptMs / 1000) + 30 };
}
