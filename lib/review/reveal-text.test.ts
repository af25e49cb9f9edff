import { describe, expect, it } from "vitest";
import { revealedString, revealText } from "./reveal-text";

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
