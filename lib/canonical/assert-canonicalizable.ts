import { hasLoneSurrogate, hasNul, NUL_MESSAGE } from "./text-checks";
import { InvalidPayloadError, type InvalidPayloadCode } from "./invalid-payload-error";
import { childPath, displayPath } from "./json-path";
import { FORBIDDEN_KEYS, MAX_SAFE_MAGNITUDE, type JsonValue } from "./json-value";

export type CanonicalizableOptions = {
  /** Refuse numbers beyond ±(2^53−1). On by default; only the raw RFC 8785 serializer turns it off. */
  safeIntegers?: boolean;
  /** Nesting limit, mostly a guard against runaway structures. Default 64 (payloads wrap parsed args). */
  maxDepth?: number;
  /** Prefix for error paths, e.g. "args". */
  path?: string;
};

/**
 * Asserts that a value built in code is plain JSON that hashes to what it looks like: no
 * undefined, functions, symbols, bigints, NaN/Infinity, Dates or class instances (toJSON would
 * decide the bytes), getters, sparse arrays, cycles, lone surrogates, unsafe integers or
 * prototype keys. Errors name the path (`args.items[3]`).
 */
export function assertCanonicalizable(value: unknown, opts: CanonicalizableOptions = {}): asserts value is JsonValue {
  check(value, { parent: null, key: opts.path ?? "" }, 0, {
    safeIntegers: opts.safeIntegers ?? true,
    maxDepth: opts.maxDepth ?? 64,
    ancestors: new Set(),
  });
}

type State = { safeIntegers: boolean; maxDepth: number; ancestors: Set<object> };

// Where a value sits, as a chain of keys: turned into a display path only for an error, so a large
// payload that is fine costs no string building (which would dominate the check's time).
type Where = { parent: Where | null; key: string | number };

function pathOf(where: Where): string {
  return where.parent === null ? String(where.key) : childPath(pathOf(where.parent), where.key);
}

function fail(code: InvalidPayloadCode, message: string, where: Where): never {
  throw new InvalidPayloadError(code, message, displayPath(pathOf(where)));
}

function check(value: unknown, where: Where, depth: number, state: State): void {
  switch (typeof value) {
    case "string":
      if (hasLoneSurrogate(value)) fail("lone_surrogate", "A string contains an unpaired UTF-16 surrogate.", where);
      if (hasNul(value)) fail("nul_character", NUL_MESSAGE, where);
      return;
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) fail("non_finite_number", `${value} is not a JSON number.`, where);
      if (state.safeIntegers && Math.abs(value) > MAX_SAFE_MAGNITUDE) {
        fail("unsafe_integer", `The number ${value} is beyond ±(2^53−1).`, where);
      }
      return;
    case "object":
      break;
    default:
      fail("unsupported_value", `A ${typeof value} is not a JSON value.`, where);
  }
  if (value === null) return;

  if (state.ancestors.has(value)) fail("circular_reference", "The value refers to itself.", where);
  if (depth + 1 > state.maxDepth) fail("too_deep", `The value is nested deeper than ${state.maxDepth} levels.`, where);
  if (Object.getOwnPropertySymbols(value).length > 0) fail("unsupported_value", "An object has symbol-keyed properties.", where);

  state.ancestors.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) fail("unsupported_value", "An array subclass is not a JSON array.", where);
    for (let i = 0; i < value.length; i++) {
      const d = Object.getOwnPropertyDescriptor(value, i);
      const at = { parent: where, key: i };
      if (d === undefined) fail("sparse_array", "The array has a hole (a missing element).", at);
      if (!("value" in d)) fail("unsupported_value", "An element is a getter, not data.", at);
      check(d.value, at, depth + 1, state);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      fail("unsupported_value", `A ${typeof name === "string" && name ? name : "class instance"} is not a plain JSON object.`, where);
    }
    for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
      if (!d.enumerable) continue; // invisible to serialization, as in JSON.stringify
      const at = { parent: where, key };
      if (FORBIDDEN_KEYS.has(key)) fail("forbidden_key", `The key "${key}" is not allowed.`, at);
      if (hasLoneSurrogate(key)) fail("lone_surrogate", "A key contains an unpaired UTF-16 surrogate.", at);
      if (hasNul(key)) fail("nul_character", NUL_MESSAGE, at);
      if (!("value" in d)) fail("unsupported_value", "A property is a getter, not data.", at);
      if (d.value === undefined) fail("unsupported_value", "A property is undefined; omit it or use null.", at);
      check(d.value, at, depth + 1, state);
    }
  }
  state.ancestors.delete(value);
}
