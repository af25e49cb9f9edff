import { readEnv } from "@/lib/env";
import { retryPolicy } from "@/lib/outbox/retry-policy";

/** The reviewer-email settings, read per use from the environment (lib/env.ts declares them). */
export function reviewerEmailSettings() {
  const timeoutMs = readEnv("REVIEWER_EMAIL_TIMEOUT_MS") ?? 15_000;
  return {
    digestSeconds: (readEnv("REVIEWER_EMAIL_DIGEST_MINUTES") ?? 60) * 60,
    // Connecting, greeting and the exchange may each take the timeout.
    retry: retryPolicy({
      baseMs: readEnv("REVIEWER_EMAIL_RETRY_BASE_MS") ?? 5_000, windowMinutes: readEnv("REVIEWER_EMAIL_RETRY_WINDOW_MINUTES") ?? 1440, attemptMs: timeoutMs * 3,
    }),
    timeoutMs,
    smtpUrl: readEnv("SMTP_URL"),
    from: readEnv("SMTP_FROM") ?? "countersign@localhost",
    /** The console's public URL, for the link to each action (the same origin sign-in uses). */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
