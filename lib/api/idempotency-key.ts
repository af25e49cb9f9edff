import { AppError } from "@/lib/errors";

/** 1–200 visible ASCII characters (no spaces, no control characters). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

export const IDEMPOTENCY_KEY_RULE = "1–200 visible ASCII characters";

function refused(code: string): AppError {
  return new AppError(code, `Send an Idempotency-Key header (${IDEMPOTENCY_KEY_RULE}) and reuse it on retries.`, 400);
}

/** The request's `Idempotency-Key` header, which it must send (execute). */
export function requiredIdempotencyKey(headers: Headers): string {
  const value = headers.get("idempotency-key");
  if (value === null || !IDEMPOTENCY_KEY.test(value)) throw refused("idempotency_key_required");
  return value;
}

/**
 * The request's `Idempotency-Key` header if it sent one (submit), held to the same format: a
 * malformed key is refused, never ignored — a typo must not silently turn a retry into a second
 * request.
 */
export function optionalIdempotencyKey(headers: Headers): string | null {
  const value = headers.get("idempotency-key");
  if (value === null) return null;
  if (!IDEMPOTENCY_KEY.test(value)) throw refused("invalid_idempotency_key");
  return value;
}
