import { readEnv } from "@/lib/env";
import type { RetryPolicy } from "@/lib/outbox/channel";

/** The reviewer-email settings, read per use from the environment (lib/env.ts declares them). */
export function reviewerEmailSettings() {
  const timeoutMs = readEnv("REVIEWER_EMAIL_TIMEOUT_MS") ?? 15_000;
  return {
    digestSeconds: (readEnv("REVIEWER_EMAIL_DIGEST_MINUTES") ?? 60) * 60,
    retry: {
      baseMs: readEnv("REVIEWER_EMAIL_RETRY_BASE_MS") ?? 5_000,
      windowSeconds: (readEnv("REVIEWER_EMAIL_RETRY_WINDOW_MINUTES") ?? 1440) * 60,
      // Connecting, greeting and the exchange may each take the timeout.
      leaseSeconds: Math.ceil((timeoutMs * 3) / 1000) + 30,
    } satisfies RetryPolicy,
    timeoutMs,
    smtpUrl: readEnv("SMTP_URL"),
    from: readEnv("SMTP_FROM") ?? "countersign@localhost",
    /** The console's public URL, for the link to each action (the same origin sign-in uses). */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
