import { readEnv } from "@/lib/env";
import type { RetryPolicy } from "@/lib/outbox/channel";

/** The Slack outbox's settings, its own (lib/env.ts declares them), read per use. */
export function slackSettings() {
  const timeoutMs = readEnv("SLACK_TIMEOUT_MS") ?? 10_000;
  return {
    timeoutMs,
    retry: {
      baseMs: readEnv("SLACK_RETRY_BASE_MS") ?? 5_000,
      windowSeconds: (readEnv("SLACK_RETRY_WINDOW_MINUTES") ?? 1440) * 60,
      leaseSeconds: Math.ceil(timeoutMs / 1000) + 30,
    } satisfies RetryPolicy,
    /** The console's public URL, for the messages' Open links. */
    consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, ""),
  };
}
