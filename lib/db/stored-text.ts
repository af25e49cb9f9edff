// PostgreSQL text and jsonb cannot hold U+0000 or a lone surrogate, which program output may hold:
// a reversible escape stores them. U+E000 (private use) introduces "0" for U+0000, "s" + four hex
// digits for a lone surrogate, "E" for itself; text with none of the three is stored unchanged.
const ESCAPE = "\uE000";
const NEEDS_ESCAPE = /[\0\uE000\uD800-\uDFFF]/gu; // with `u`, a well-formed pair is one code point
const ESCAPED = /\uE000(?:0|E|s([0-9a-f]{4}))/g;

/** The form output is stored in (see the header). */
export function encodeStoredText(text: string): string {
  return text.replace(NEEDS_ESCAPE, (ch) => {
    if (ch === "\u0000") return `${ESCAPE}0`;
    if (ch === ESCAPE) return `${ESCAPE}E`;
    return `${ESCAPE}s${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** The text exactly as it was before encodeStoredText. */
export function decodeStoredText(stored: string): string {
  if (!stored.includes(ESCAPE)) return stored;
  return stored.replace(ESCAPED, (whole, hex: string | undefined) => {
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    return whole === `${ESCAPE}0` ? "\u0000" : ESCAPE;
  });
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** encodeStoredText over every string (keys too) of a JSON value that goes into a jsonb column. */
export function encodeStoredJson<T>(value: T): T {
  return mapStrings(value as Json, encodeStoredText) as T;
}

/** decodeStoredJson(encodeStoredJson(v)) is v. */
export function decodeStoredJson<T>(value: T): T {
  return mapStrings(value as Json, decodeStoredText) as T;
}

function mapStrings(value: Json, f: (s: string) => string): Json {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[f(k)] = mapStrings(v, f);
    return out;
  }
  return value;
}
