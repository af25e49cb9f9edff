import { readEnv } from "@/lib/env";

/** The reviewer-email settings, read per use from the environment (lib/env.ts declares them). */
export function reviewerEmailSettings() {
  return {
    digestSeconds: (readEnv("REVIEWER_EMAIL_DIGEST_MINUTES") ?? 60) * 60,
    retryBaseMs: readEnv("REVIEWER_EMAIL_RETRY_BASE_MS") ?? 5_000,
    retryWindowSeconds: (readEnv("REVIEWER_EMAIL_RETRY_WINDOW_MINUTES") ?? 1440) * 60,
    timeoutMs: readEnv("REVIEWER_EMAIL_TIMEOUT_MS") ?? 15_000,
    smtpUrl: readEnv("SMTP_URL"),
    from: readEnv("SMTP_FROM") ?? "countersign@localhost",
    /** The console's public URL, for the link to each action (the same origin sign-in uses). */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
