// In a `u` regex a well-formed surrogate pair is one code point, so this class only
// matches a surrogate code unit that is not part of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** PostgreSQL stores no U+0000 in text or jsonb, so a value holding one could never be recorded. */
export const NUL_MESSAGE = "A string contains a NUL character (\\u0000), which cannot be stored.";

export function hasNul(s: string): boolean {
  return s.includes("\u0000");
}
