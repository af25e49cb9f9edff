import { hasLoneSurrogate, hasNul, NUL_MESSAGE } from "./text-checks";
import { InvalidPayloadError } from "./invalid-payload-error";
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
 * Asserts that a value built in code is plain JSON data that hashes to what it looks
 * like: no undefined (JSON.stringify would drop or null it), functions, symbols,
 * bigints, NaN/Infinity, Dates or other class instances (their toJSON or prototype
 * would decide the bytes), getters (could answer differently on each read), sparse
 * arrays, cycles, lone surrogates, unsafe integers or `__proto__` / `constructor` /
 * `prototype` keys. Errors name the path, e.g. `args.items[3]`.
 */
export function assertCanonicalizable(value: unknown, opts: CanonicalizableOptions = {}): asserts value is JsonValue {
  check(value, opts.path ?? "", 0, {
    safeIntegers: opts.safeIntegers ?? true,
    maxDepth: opts.maxDepth ?? 64,
    ancestors: new Set(),
  });
}

type State = { safeIntegers: boolean; maxDepth: number; ancestors: Set<object> };

function check(value: unknown, path: string, depth: number, state: State): void {
  const at = displayPath(path);
  switch (typeof value) {
    case "string":
      if (hasLoneSurrogate(value)) {
        throw new InvalidPayloadError("lone_surrogate", "A string contains an unpaired UTF-16 surrogate.", at);
      }
      if (hasNul(value)) throw new InvalidPayloadError("nul_character", NUL_MESSAGE, at);
      return;
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) {
        throw new InvalidPayloadError("non_finite_number", `${value} is not a JSON number.`, at);
      }
      if (state.safeIntegers && Math.abs(value) > MAX_SAFE_MAGNITUDE) {
        throw new InvalidPayloadError("unsafe_integer", `The number ${value} is beyond ±(2^53−1).`, at);
      }
      return;
    case "object":
      break;
    default:
      throw new InvalidPayloadError("unsupported_value", `A ${typeof value} is not a JSON value.`, at);
  }
  if (value === null) return;

  if (state.ancestors.has(value)) {
    throw new InvalidPayloadError("circular_reference", "The value refers to itself.", at);
  }
  if (depth + 1 > state.maxDepth) {
    throw new InvalidPayloadError("too_deep", `The value is nested deeper than ${state.maxDepth} levels.`, at);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) {
    throw new InvalidPayloadError("unsupported_value", "An object has symbol-keyed properties.", at);
  }

  state.ancestors.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) {
      throw new InvalidPayloadError("unsupported_value", "An array subclass is not a JSON array.", at);
    }
    const descriptors = Object.getOwnPropertyDescriptors(value);
    for (let i = 0; i < value.length; i++) {
      const d = descriptors[i];
      if (d === undefined) {
        throw new InvalidPayloadError("sparse_array", "The array has a hole (a missing element).", childPath(path, i));
      }
      if (!("value" in d)) {
        throw new InvalidPayloadError("unsupported_value", "An element is a getter, not data.", childPath(path, i));
      }
      check(d.value, childPath(path, i), depth + 1, state);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      throw new InvalidPayloadError(
        "unsupported_value",
        `A ${typeof name === "string" && name ? name : "class instance"} is not a plain JSON object.`,
        at,
      );
    }
    for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
      const keyPath = childPath(path, key);
      if (!d.enumerable) continue; // invisible to serialization, as in JSON.stringify
      if (FORBIDDEN_KEYS.has(key)) {
        throw new InvalidPayloadError("forbidden_key", `The key "${key}" is not allowed.`, keyPath);
      }
      if (hasLoneSurrogate(key)) {
        throw new InvalidPayloadError("lone_surrogate", "A key contains an unpaired UTF-16 surrogate.", keyPath);
      }
      if (hasNul(key)) throw new InvalidPayloadError("nul_character", NUL_MESSAGE, keyPath);
      if (!("value" in d)) {
        throw new InvalidPayloadError("unsupported_value", "A property is a getter, not data.", keyPath);
      }
      if (d.value === undefined) {
        throw new InvalidPayloadError("unsupported_value", "A property is undefined; omit it or use null.", keyPath);
      }
      check(d.value, keyPath, depth + 1, state);
    }
  }
  state.ancestors.delete(value);
}
