import { LogLevel, WebClient } from "@slack/web-api";
import { readEnv } from "@/lib/env";
import { slackSettings } from "@/lib/slack/slack-settings";

/** The Slack Web API base URL (SLACK_API_URL; tests point it at a local fake), with a trailing slash. */
export function slackApiUrl(): string {
  const configured = readEnv("SLACK_API_URL") ?? "https://slack.com/api/";
  return configured.endsWith("/") ? configured : `${configured}/`;
}

/** Slack's client for one bot token, without retries of its own (the outbox retries), each call bounded by SLACK_TIMEOUT_MS. */
export function slackClient(botToken: string): WebClient {
  return new WebClient(botToken, {
    slackApiUrl: slackApiUrl(),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: slackSettings().timeoutMs,
    // Only method names relative to the configured base URL, and only errors in the log.
    allowAbsoluteUrls: false,
    logLevel: LogLevel.ERROR,
  });
}
