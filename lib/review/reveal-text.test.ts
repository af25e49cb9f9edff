import { describe, expect, it } from "vitest";
import { codePointLabel, hiddenKind } from "@/lib/risk/hidden-characters";
import { scriptOf } from "@/lib/risk/confusable-skeleton";
import { MAX_MARKED_SEGMENTS, revealedString, revealText } from "./reveal-text";

describe("revealText", () => {
  it("replaces bidi, zero-width, tag and other invisible characters with markers", () => {
    expect(revealedString("Refund \u202eoN\u202c now")).toBe("Refund ⟦U+202E⟧oN⟦U+202C⟧ now");
    expect(revealedString("pay\u200bpal")).toBe("pay⟦U+200B⟧pal");
    expect(revealedString(`hi${String.fromCodePoint(0xe0041)}`)).toBe("hi⟦U+E0041⟧");
    expect(revealedString("a\u2066b\u2069c\u200ed\ufeffe")).toBe("a⟦U+2066⟧b⟦U+2069⟧c⟦U+200E⟧d⟦U+FEFF⟧e");
    expect(revealedString("pa\ufe01y")).toBe("pa⟦U+FE01⟧y");
  });

  it("marks a Cyrillic letter inside a Latin word, keeping it", () => {
    expect(revealedString("billing@ex\u0430mple.com")).toBe("billing@ex\u0430⟦U+0430⟧mple.com");
    // All-Cyrillic words and ordinary text are left alone.
    expect(revealedString("Привет, world — café ❤️")).toBe("Привет, world — café ❤️");
  });

  it("marks a label of Cyrillic lookalikes in a Latin host name or address, not Cyrillic words beside Latin ones", () => {
    expect(revealedString("Reply to ops@\u0430\u0441\u0435.example.")).toBe("Reply to ops@\u0430⟦U+0430⟧\u0441⟦U+0441⟧\u0435⟦U+0435⟧.example.");
    expect(revealedString("see \u0430\u0441\u0435.example.com/pay")).toBe("see \u0430⟦U+0430⟧\u0441⟦U+0441⟧\u0435⟦U+0435⟧.example.com/pay");
    expect(revealedString("IT-отдел, пример.рф. Done.")).toBe("IT-отдел, пример.рф. Done.");
  });

  it("counts a run of one hidden character instead of repeating it, in one pass over 100,000 characters", () => {
    const segments = revealText(`x${"\u202e".repeat(100_000)}y`);
    expect(segments).toEqual([
      { kind: "text", text: "x" },
      { kind: "hidden", label: "U+202E", name: "RIGHT-TO-LEFT OVERRIDE", count: 100_000 },
      { kind: "text", text: "y" },
    ]);
    expect(revealedString("a".repeat(100_000))).toHaveLength(100_000);
  });
});

/** The first implementation (a token per hidden candidate or word, every marker its own segment): the oracle. */
function referenceRevealedString(text: string): string {
  // A word, or words joined by single "." or "@" (a host name, an address).
  const TOKEN = /([\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029])|(?:(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}])+(?:[.@](?:(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}])+)*/gu;
  let out = "";
  let lastHidden = null as { label: string; count: number } | null;
  const flush = () => {
    if (lastHidden) out += `⟦${lastHidden.label}${lastHidden.count > 1 ? ` ×${lastHidden.count}` : ""}⟧`;
    lastHidden = null;
  };
  const plain = (s: string) => {
    if (s === "") return;
    flush();
    out += s;
  };
  let at = 0;
  for (const m of text.matchAll(TOKEN)) {
    plain(text.slice(at, m.index));
    at = m.index + m[0].length;
    const first = m[0].codePointAt(0)!;
    if (m[1] !== undefined) {
      if (!hiddenKind(first, m.index > 0 ? text.codePointAt(m.index - 1)! : null)) {
        plain(m[0]);
        continue;
      }
      const label = codePointLabel(first);
      if (lastHidden?.label === label) lastHidden.count++;
      else {
        flush();
        lastHidden = { label, count: 1 };
      }
      continue;
    }
    const chars = [...m[0]];
    const mixed = chars.some((ch) => scriptOf(ch) === "latin") && chars.some((ch) => ["cyrillic", "greek"].includes(scriptOf(ch) ?? ""));
    if (!mixed) plain(m[0]);
    else for (const ch of chars) plain(["cyrillic", "greek"].includes(scriptOf(ch) ?? "") ? `${ch}⟦${codePointLabel(ch.codePointAt(0)!)}⟧` : ch);
  }
  plain(text.slice(at));
  flush();
  return out;
}

describe("revealText against the first implementation", () => {
  // Latin, Cyrillic and Greek letters, digits, a combining mark, astral letters (one of them
  // Latin, so a word can start with a surrogate pair), an emoji,
  // spaces and punctuation, Cyrillic and Greek signs that are not letters (U+0482, U+0384) and a
  // Cyrillic combining mark (U+0483), and hidden code points: zero-width, bidi, variation selectors (after
  // an emoji they are presentation, not hidden), U+034F, a tag, a lone surrogate.
  const ALPHABET = ["a", "b", "x", "Z", "а", "е", "о", "ο", "β", "б", "7", "\u0301", "𝐀", String.fromCodePoint(0x10783), "😀", " ", ".", "@", "-",
    "\u0482", "\u0384", "\u0483",
    "\u200b", "\u200b", "\u202e", "\u2066", "\ufe0f", "\ufe01", "\u034f", String.fromCodePoint(0xe0041), "\ud800", "\u2028", "\t", "\u0000"];
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const randomText = (length: number) => Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");

  it("a Cyrillic or Greek sign right after a word is not part of it: the word and the sign come out once", () => {
    expect(revealedString("ab\u0482 x")).toBe("ab\u0482 x");
    expect(revealedString("pаy\u0384c")).toBe("pа⟦U+0430⟧y\u0384c");
  });

  it("writes every text the same, marker for marker, in short random texts", () => {
    for (let i = 0; i < 3_000; i++) {
      const text = randomText(1 + Math.floor(random() * 40));
      expect(revealedString(text), JSON.stringify(text)).toBe(referenceRevealedString(text));
    }
  });

  it(`past ${MAX_MARKED_SEGMENTS} markers writes the rest into the text, the same markers, so a hostile text makes a bounded number of elements`, () => {
    for (let i = 0; i < 20; i++) {
      const text = randomText(5_000);
      const segments = revealText(text);
      expect(segments.filter((s) => s.kind !== "text").length).toBeLessThanOrEqual(MAX_MARKED_SEGMENTS);
      expect(revealedString(text)).toBe(referenceRevealedString(text));
    }
    const hostile = "a\u200b".repeat(50_000);
    const segments = revealText(hostile);
    expect(segments.filter((s) => s.kind === "hidden")).toHaveLength(MAX_MARKED_SEGMENTS);
    expect(segments.length).toBeLessThanOrEqual(2 * MAX_MARKED_SEGMENTS + 1);
    expect(revealedString(hostile)).toBe("a⟦U+200B⟧".repeat(50_000));
  });
});
