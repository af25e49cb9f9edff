import { scriptOf } from "@/lib/risk/confusable-skeleton";
import { codePointLabel, hiddenCharacterName, hiddenKind } from "@/lib/risk/hidden-characters";

export type RevealedSegment =
  | { kind: "text"; text: string }
  /** An invisible code point, replaced by a marker (a run of the same one is counted, not repeated). */
  | { kind: "hidden"; label: string; name: string; count: number }
  /** A letter of another script inside a Latin word (a homoglyph): kept, and named beside it. */
  | { kind: "lookalike"; char: string; label: string };

// One hidden candidate, or one maximal word: alternatives that never backtrack into each other.
// Variation selectors and U+034F are marks, so a word stops at any default-ignorable code point
// and that one is judged alone.
const TOKEN = /([\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029])|(?:(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}])+/gu;

/**
 * Text as a reviewer must see it: invisible and direction-changing code points become markers
 * (⟦U+202E⟧) instead of acting on the text around them, and Cyrillic or Greek letters mixed into a
 * Latin word are marked where they stand. Everything else is left exactly as it is. Linear.
 */
export function revealText(text: string): RevealedSegment[] {
  const out: RevealedSegment[] = [];
  const plain = (s: string) => {
    if (s === "") return;
    const last = out.at(-1);
    if (last?.kind === "text") last.text += s;
    else out.push({ kind: "text", text: s });
  };
  let at = 0;
  for (const m of text.matchAll(TOKEN)) {
    plain(text.slice(at, m.index));
    at = m.index + m[0].length;
    const first = m[0].codePointAt(0)!;
    if (m[1] !== undefined) {
      const kind = hiddenKind(first, m.index > 0 ? text.codePointAt(m.index - 1)! : null);
      if (!kind) {
        plain(m[0]);
        continue;
      }
      const label = codePointLabel(first);
      const last = out.at(-1);
      if (last?.kind === "hidden" && last.label === label) last.count++;
      else out.push({ kind: "hidden", label, name: hiddenCharacterName(first), count: 1 });
      continue;
    }
    revealWord(m[0], out, plain);
  }
  plain(text.slice(at));
  return out;
}

function revealWord(word: string, out: RevealedSegment[], plain: (s: string) => void) {
  let latin = false;
  let lookalike = false;
  for (const ch of word) {
    const s = scriptOf(ch);
    if (s === "latin") latin = true;
    else if (s === "cyrillic" || s === "greek") lookalike = true;
  }
  if (!(latin && lookalike)) {
    plain(word);
    return;
  }
  for (const ch of word) {
    const s = scriptOf(ch);
    if (s === "cyrillic" || s === "greek") out.push({ kind: "lookalike", char: ch, label: codePointLabel(ch.codePointAt(0)!) });
    else plain(ch);
  }
}

/** The same text as one string with the markers written out (for tests and plain-text places). */
export function revealedString(text: string): string {
  return revealText(text)
    .map((s) => (s.kind === "text" ? s.text : s.kind === "hidden" ? `⟦${s.label}${s.count > 1 ? ` ×${s.count}` : ""}⟧` : `${s.char}⟦${s.label}⟧`))
    .join("");
}
