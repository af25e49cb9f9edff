import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's replay window: a request signed more than five minutes from now is refused. */
export const SLACK_TIMESTAMP_WINDOW_SECONDS = 300;

export type SlackSignatureCheck = { ok: true } | { ok: false; reason: "bad_signature" | "old_timestamp"; message: string };

/** The v0 signature Slack sends in `x-slack-signature`: HMAC-SHA256 of `v0:{timestamp}:{raw body}`. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`, "utf8").digest("hex")}`;
}

/**
 * Verifies a request from Slack (https://api.slack.com/authentication/verifying-requests-from-slack):
 * the timestamp within five minutes of `nowSeconds`, and the signature over the exact raw body,
 * compared in constant time.
 */
export function verifySlackSignature(input: {
  signingSecret: string; timestamp: string | null; signature: string | null; rawBody: string; nowSeconds: number;
}): SlackSignatureCheck {
  const { timestamp, signature } = input;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "bad_signature", message: "The request has no valid X-Slack-Request-Timestamp." };
  if (Math.abs(input.nowSeconds - Number(timestamp)) > SLACK_TIMESTAMP_WINDOW_SECONDS) {
    return { ok: false, reason: "old_timestamp", message: "The request's timestamp is more than five minutes away from now (a replay?)." };
  }
  if (!signature) return { ok: false, reason: "bad_signature", message: "The request has no X-Slack-Signature." };
  const expected = Buffer.from(slackSignature(input.signingSecret, timestamp, input.rawBody), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "bad_signature", message: "The request's signature does not match the Slack app's signing secret." };
  }
  return { ok: true };
}
