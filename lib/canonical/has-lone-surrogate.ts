// In a `u` regex a well-formed surrogate pair is one code point, so this class only
// matches a surrogate code unit that is not part of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}
