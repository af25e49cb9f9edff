/** A value that JSON (RFC 8259) can represent and RFC 8785 can canonicalize. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/**
 * Object keys refused anywhere in a payload: `__proto__` can rewrite an object's
 * prototype when copied with plain assignment, and `constructor` / `prototype`
 * are the other half of the usual prototype-pollution gadgets.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Largest magnitude a JSON number may have: beyond it, doubles cannot tell neighbouring integers apart. */
export const MAX_SAFE_MAGNITUDE = Number.MAX_SAFE_INTEGER;
