/** Kinds of code points that change what a reader sees without being seen themselves. */
export type HiddenKind = "bidi" | "zero-width" | "tag" | "variation-selector" | "invisible";

const NAMES: Record<number, string> = {
  0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER", 0x200d: "ZERO WIDTH JOINER", 0x2060: "WORD JOINER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE", 0x180e: "MONGOLIAN VOWEL SEPARATOR", 0x200e: "LEFT-TO-RIGHT MARK", 0x200f: "RIGHT-TO-LEFT MARK",
  0x061c: "ARABIC LETTER MARK", 0x202a: "LEFT-TO-RIGHT EMBEDDING", 0x202b: "RIGHT-TO-LEFT EMBEDDING", 0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE", 0x202e: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE", 0x00ad: "SOFT HYPHEN", 0x034f: "COMBINING GRAPHEME JOINER",
  0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR", 0x115f: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER",
  0x3164: "HANGUL FILLER", 0xffa0: "HALFWIDTH HANGUL FILLER",
};

const FORMAT = /^\p{Cf}$/u;
const CONTROL = /^\p{Cc}$/u;

/**
 * What a code point hides, or null for an ordinary visible one. `previous` is the code point
 * before it: an emoji presentation selector (U+FE0E/FE0F) after a symbol is ordinary text; after
 * a letter or digit it is a carrier for hidden data and counts.
 */
export function hiddenKind(cp: number, previous: number | null): HiddenKind | null {
  if (cp < 0x80) return cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d ? "invisible" : cp === 0x7f ? "invisible" : null;
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c) return "bidi";
  if ((cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || cp === 0xfeff || cp === 0x180e) return "zero-width";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) {
    if ((cp === 0xfe0e || cp === 0xfe0f) && previous !== null && previous >= 0x2000) return null;
    return "variation-selector";
  }
  if (cp === 0x034f || cp === 0x2028 || cp === 0x2029 || cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return "invisible";
  if (cp >= 0xd800 && cp <= 0xdfff) return "invisible"; // a lone surrogate
  const ch = String.fromCodePoint(cp);
  return FORMAT.test(ch) || CONTROL.test(ch) ? "invisible" : null;
}

/** `U+202E`, the form markers and reasons use. */
export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** A name for the reviewer, where one is known. */
export function hiddenCharacterName(cp: number): string {
  if (cp >= 0xe0000 && cp <= 0xe007f) return "TAG CHARACTER";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "VARIATION SELECTOR";
  return NAMES[cp] ?? "INVISIBLE CHARACTER";
}

/** Iterates code points with their offsets; lone surrogates come through as themselves. */
export function* codePoints(text: string): Generator<number> {
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    yield cp;
  }
}
