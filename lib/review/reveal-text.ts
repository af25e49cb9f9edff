import { scriptOf } from "@/lib/risk/confusable-skeleton";
import { codePointLabel, hiddenCharacterName, hiddenKind } from "@/lib/risk/hidden-characters";

export type RevealedSegment =
  | { kind: "text"; text: string }
  /** An invisible code point, replaced by a marker (a run of the same one is counted, not repeated). */
  | { kind: "hidden"; label: string; name: string; count: number }
  /** A letter of another script inside a Latin word (a homoglyph): kept, and named beside it. */
  | { kind: "lookalike"; char: string; label: string };

// What can need a marker: a hidden candidate (group 1), or a Cyrillic or Greek code point (which
// may sit in a Latin word). Only these are visited; the text between them goes out whole. A word
// is a maximal run of letters, marks and digits that are not default-ignorable (variation
// selectors and U+034F are marks, so a word stops at any default-ignorable code point and that
// one is judged alone). Words joined by single "." or "@" (a host name, an address) are judged
// as one: a label of Cyrillic lookalikes in a Latin domain (ops@асе.example) is marked too.
const CANDIDATE = /([\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029])|[\p{Script=Cyrillic}\p{Script=Greek}]/gu;
const WORD_CHAR = /^(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}]$/u;
const WORD_REST = /(?:(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}])*/uy;
const HIGH_SURROGATE = /^[\uD800-\uDBFF]$/;
const LOW_SURROGATE = /^[\uDC00-\uDFFF]$/;

const JOINER = /^[.@]$/;

/** Where the run of word characters that `at` is in or just after starts (`at` if none precede it). */
function wordStart(text: string, at: number): number {
  let start = at;
  while (start > 0) {
    const width = start >= 2 && LOW_SURROGATE.test(text[start - 1]) && HIGH_SURROGATE.test(text[start - 2]) ? 2 : 1;
    if (!WORD_CHAR.test(text.slice(start - width, start))) break;
    start -= width;
  }
  return start;
}

/** Where the run of word characters from `at` ends (`at` if `text[at]` is not one). */
function wordEnd(text: string, at: number): number {
  WORD_REST.lastIndex = at;
  WORD_REST.exec(text);
  return WORD_REST.lastIndex;
}

/**
 * Where the word around `text[at]` starts and ends, with the words joined to it by single "." or
 * "@"; [at, at] if `text[at]` is in none (a Cyrillic or Greek sign or symbol, say, even right after
 * a word).
 */
function wordAround(text: string, at: number): [number, number] {
  let end = wordEnd(text, at);
  if (end === at) return [at, at];
  for (let next; JOINER.test(text[end] ?? "") && (next = wordEnd(text, end + 1)) > end + 1; ) end = next;
  let start = wordStart(text, at);
  for (let previous; start >= 2 && JOINER.test(text[start - 1]) && (previous = wordStart(text, start - 1)) < start - 1; ) start = previous;
  return [start, end];
}

/**
 * At most this many markers of a text become segments of their own (each is an element on the
 * page). Past it, the rest are written into the plain text in the same ⟦U+…⟧ form: still visible
 * and still inert, but a hostile 100,000-character text cannot make a page of 100,000 elements.
 */
export const MAX_MARKED_SEGMENTS = 500;

/**
 * Text as a reviewer must see it: invisible and direction-changing code points become markers
 * (⟦U+202E⟧) instead of acting on the text around them, and Cyrillic or Greek letters mixed into a
 * Latin word are marked where they stand. Everything else is left exactly as it is. Linear; at
 * most MAX_MARKED_SEGMENTS markers are segments of their own.
 */
export function revealText(text: string): RevealedSegment[] {
  const out: RevealedSegment[] = [];
  let marked = 0;
  // A run of one hidden code point written as text (past the cap), counted until it ends.
  let run: { label: string; count: number } | null = null;
  const endRun = () => {
    if (run) append(hiddenMarker(run.label, run.count));
    run = null;
  };
  // The current text segment's pieces, joined once when a marker segment or the end comes.
  let pieces: string[] = [];
  const append = (s: string) => void pieces.push(s);
  const flushText = () => {
    if (pieces.length > 0) out.push({ kind: "text", text: pieces.join("") });
    pieces = [];
  };
  const plain = (s: string) => {
    if (s === "") return;
    endRun();
    append(s);
  };
  const hidden = (label: string, name: string) => {
    const last = out.at(-1);
    if (run === null && pieces.length === 0 && last?.kind === "hidden" && last.label === label) last.count++;
    else if (marked < MAX_MARKED_SEGMENTS) {
      endRun();
      flushText();
      out.push({ kind: "hidden", label, name, count: 1 });
      marked++;
    } else if (run?.label === label) run.count++;
    else {
      endRun();
      run = { label, count: 1 };
    }
  };
  const lookalike = (char: string, label: string) => {
    if (marked < MAX_MARKED_SEGMENTS) {
      endRun();
      flushText();
      out.push({ kind: "lookalike", char, label });
      marked++;
    } else plain(lookalikeMarker(char, label));
  };
  let at = 0;
  const candidate = new RegExp(CANDIDATE);
  for (let m = candidate.exec(text); m !== null; m = candidate.exec(text)) {
    if (m[1] !== undefined) {
      plain(text.slice(at, m.index));
      at = m.index + m[0].length;
      const first = m[0].codePointAt(0)!;
      const kind = hiddenKind(first, m.index > 0 ? text.codePointAt(m.index - 1)! : null);
      if (kind) hidden(cachedLabel(m[0]), hiddenCharacterName(first));
      else plain(m[0]);
      continue;
    }
    const [start, end] = wordAround(text, m.index);
    if (start === end) continue; // not in a word: stays in the plain text
    plain(text.slice(at, start));
    revealWord(text.slice(start, end), plain, lookalike);
    at = end;
    candidate.lastIndex = end;
  }
  plain(text.slice(at));
  endRun();
  flushText();
  return out;
}

const hiddenMarker = (label: string, count: number) => `⟦${label}${count > 1 ? ` ×${count}` : ""}⟧`;
const lookalikeMarker = (char: string, label: string) => `${char}⟦${label}⟧`;

// Per character, the script and the label: a hostile word repeats a few characters 100,000 times.
const scripts = new Map<string, ReturnType<typeof scriptOf>>();
const labels = new Map<string, string>();
const CACHE_LIMIT = 4_096;

function cachedScriptOf(ch: string): ReturnType<typeof scriptOf> {
  let script = scripts.get(ch);
  if (script === undefined) {
    script = scriptOf(ch);
    if (scripts.size < CACHE_LIMIT) scripts.set(ch, script);
  }
  return script;
}

function cachedLabel(ch: string): string {
  let label = labels.get(ch);
  if (label === undefined) {
    label = codePointLabel(ch.codePointAt(0)!);
    if (labels.size < CACHE_LIMIT) labels.set(ch, label);
  }
  return label;
}

const isLookalike = (script: ReturnType<typeof scriptOf>) => script === "cyrillic" || script === "greek";

function revealWord(word: string, plain: (s: string) => void, lookalike: (char: string, label: string) => void) {
  let latin = false;
  let other = false;
  for (const ch of word) {
    const s = cachedScriptOf(ch);
    if (s === "latin") latin = true;
    else if (isLookalike(s)) other = true;
    if (latin && other) break;
  }
  if (!(latin && other)) {
    plain(word);
    return;
  }
  // The Latin (and other) stretches between lookalikes go out whole.
  let from = 0;
  let at = 0;
  for (const ch of word) {
    if (isLookalike(cachedScriptOf(ch))) {
      plain(word.slice(from, at));
      lookalike(ch, cachedLabel(ch));
      from = at + ch.length;
    }
    at += ch.length;
  }
  plain(word.slice(from));
}

/** The same text as one string with the markers written out (for tests and plain-text places). */
export function revealedString(text: string): string {
  return revealText(text)
    .map((s) => (s.kind === "text" ? s.text : s.kind === "hidden" ? hiddenMarker(s.label, s.count) : lookalikeMarker(s.char, s.label)))
    .join("");
}
