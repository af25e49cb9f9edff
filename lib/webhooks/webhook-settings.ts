import { readEnv } from "@/lib/env";

/** The delivery settings, read once per use from the environment (lib/env.ts declares them). */
export function webhookSettings() {
  return {
    timeoutMs: readEnv("WEBHOOK_TIMEOUT_MS") ?? 10_000,
    retryBaseMs: readEnv("WEBHOOK_RETRY_BASE_MS") ?? 5_000,
    retryWindowSeconds: (readEnv("WEBHOOK_RETRY_WINDOW_MINUTES") ?? 1440) * 60,
    /** How long the previous secret keeps signing after a rotation. */
    rotationOverlapSeconds: 24 * 3600,
  };
}

/** The delay before attempt `attempts + 1`: exponential from the base, capped at an hour, ±50 % jitter. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
  return Math.round(exponential * (0.5 + random()));
}
