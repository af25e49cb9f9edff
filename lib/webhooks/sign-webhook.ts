import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signing: base64(HMAC-SHA256(secret, `${id}.${timestamp}.${body}`)) sent as
 * `v1,<sig>`, one per valid secret, so a receiver keeps verifying through a rotation. Secrets are
 * `whsec_` + base64 of 32 random bytes.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

export type WebhookHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

export function signWebhook(input: { id: string; timestampSeconds: number; body: string; secrets: readonly string[] }): WebhookHeaders {
  const signed = `${input.id}.${input.timestampSeconds}.${input.body}`;
  const signatures = input.secrets.map((secret) => `v1,${createHmac("sha256", secretBytes(secret)).update(signed, "utf8").digest("base64")}`);
  return { "webhook-id": input.id, "webhook-timestamp": String(input.timestampSeconds), "webhook-signature": signatures.join(" ") };
}
