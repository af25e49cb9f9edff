import canonicalize from "canonicalize";
import { assertCanonicalizable } from "./assert-canonicalizable";
import type { JsonValue } from "./json-value";

/**
 * RFC 8785 (JCS) canonical JSON, checked first: canonicalize@4 on Node 20 writes invalid JSON for
 * `undefined` in arrays and follows `toJSON`. The ±2^53 limit is our input rule, enforced elsewhere.
 */
export function canonicalJson(value: JsonValue): string {
  assertCanonicalizable(value, { safeIntegers: false });
  const out = canonicalize(value);
  if (out === undefined) throw new Error("canonicalize returned nothing for a checked JSON value");
  return out;
}

/**
 * RFC 8785 JSON of a value known to be plain (from `jsonb`, or already checked), without checking
 * again: the audit log canonicalises each event to write, seal and verify it, and the check costs
 * as much as the serialising.
 */
export function canonicalJsonOfPlainJson(value: JsonValue): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error("canonicalize returned nothing for a JSON value");
  return out;
}
