import { readEnv } from "@/lib/env";
import { retryPolicy } from "@/lib/outbox/retry-policy";

/** The Slack outbox's settings, its own (lib/env.ts declares them), read per use. */
export function slackSettings() {
  const timeoutMs = readEnv("SLACK_TIMEOUT_MS") ?? 10_000;
  const retry = retryPolicy({ baseMs: readEnv("SLACK_RETRY_BASE_MS") ?? 5_000, windowMinutes: readEnv("SLACK_RETRY_WINDOW_MINUTES") ?? 1440, attemptMs: timeoutMs });
  /** consoleUrl: the console's public URL, for the messages' Open links. */
  return { timeoutMs, retry, consoleUrl: (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, "") };
}
