import { readEnv } from "@/lib/env";
import type { RetryPolicy } from "@/lib/outbox/channel";

/** The delivery settings, read once per use from the environment (lib/env.ts declares them). */
export function webhookSettings() {
  const timeoutMs = readEnv("WEBHOOK_TIMEOUT_MS") ?? 10_000;
  return {
    timeoutMs,
    retry: {
      baseMs: readEnv("WEBHOOK_RETRY_BASE_MS") ?? 5_000,
      windowSeconds: (readEnv("WEBHOOK_RETRY_WINDOW_MINUTES") ?? 1440) * 60,
      leaseSeconds: Math.ceil(timeoutMs / 1000) + 30,
    } satisfies RetryPolicy,
    /** How long the previous secret keeps signing after a rotation. */
    rotationOverlapSeconds: 24 * 3600,
    /** The console's public URL, for the links in payloads. */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
