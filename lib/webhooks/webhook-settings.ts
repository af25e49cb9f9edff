import { readEnv } from "@/lib/env";
import { retryPolicy } from "@/lib/outbox/retry-policy";

/** The delivery settings, read once per use from the environment (lib/env.ts declares them). */
export function webhookSettings() {
  const timeoutMs = readEnv("WEBHOOK_TIMEOUT_MS") ?? 10_000;
  const retry = retryPolicy({ baseMs: readEnv("WEBHOOK_RETRY_BASE_MS") ?? 5_000, windowMinutes: readEnv("WEBHOOK_RETRY_WINDOW_MINUTES") ?? 1440, attemptMs: timeoutMs });
  return {
    timeoutMs,
    retry,
    /** How long the previous secret keeps signing after a rotation. */
    rotationOverlapSeconds: 24 * 3600,
    /** The console's public URL, for the links in payloads. */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
