import canonicalize from "canonicalize";
import { assertCanonicalizable } from "./assert-canonicalizable";
import type { JsonValue } from "./json-value";

/**
 * RFC 8785 (JCS) canonical JSON. The value is checked first because canonicalize@4
 * on Node 20 writes invalid JSON for `undefined` in arrays and follows `toJSON`.
 * The ±2^53 limit is Countersign's input rule, not JCS's, so it is not applied
 * here; parseStrictJson, assertCanonicalizable and payloadHash enforce it.
 */
export function canonicalJson(value: JsonValue): string {
  assertCanonicalizable(value, { safeIntegers: false });
  const out = canonicalize(value);
  if (out === undefined) throw new Error("canonicalize returned nothing for a checked JSON value");
  return out;
}

/**
 * RFC 8785 canonical JSON of a value already known to be plain JSON — parsed back from PostgreSQL
 * `jsonb`, or built from values `canonicalJson`'s checks have passed — without checking it again:
 * the audit log canonicalises every event when it writes, seals and verifies it, and the check
 * costs as much as the serialising.
 */
export function canonicalJsonOfPlainJson(value: JsonValue): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error("canonicalize returned nothing for a JSON value");
  return out;
}
