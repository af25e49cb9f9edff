import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every secret starts with this, so leaked keys are easy to recognise (and to scan for). */
export const API_KEY_SECRET_PREFIX = "cs_live_";

const SECRET_PATTERN = /^cs_live_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/;

/** A new key's public prefix (stored, shown in lists) and its full secret (shown once). */
export function generateApiKeySecret(): { prefix: string; secret: string } {
  // 48 random bits in hex: unique enough for an index (the column is unique), and not a secret.
  const prefix = randomBytes(6).toString("hex");
  // 256 random bits: the part that is secret.
  const random = randomBytes(32).toString("base64url");
  return { prefix, secret: `${API_KEY_SECRET_PREFIX}${prefix}_${random}` };
}

/** Splits a presented secret into its prefix, or null when it is not shaped like one of ours. */
export function parseApiKeySecret(secret: string): { prefix: string } | null {
  const match = SECRET_PATTERN.exec(secret);
  return match ? { prefix: match[1] } : null;
}

/** Only this is stored. The secret is 256 random bits, so a slow KDF would add nothing. */
export function hashApiKeySecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two hex digests in constant time. */
export function secretHashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
