import { describe, expect, it } from "vitest";
import { codeBlocks, lineNumbers } from "@/lib/review/code-blocks";
import { revealText, type RevealedSegment } from "@/lib/review/reveal-text";

/** The block's lines as revealText gives each alone (a marker never holds a line feed). */
const linesOf = (segments: RevealedSegment[]) => {
  const text = segments.map((s) => (s.kind === "text" ? s.text : s.kind === "hidden" ? `⟦${s.label}×${s.count}⟧` : `${s.char}⟦${s.label}⟧`)).join("");
  return text.split("\n");
};
const shown = (line: string) => linesOf(revealText(line))[0];

describe("codeBlocks", () => {
  const code = 'a = "x\u202E"\n\nb = "p\u0430y"\n\u200b\u200b\nend\nlast';

  it("keeps every line, in order, as revealText shows it alone; the gutter numbers them", () => {
    const blocks = codeBlocks(revealText(code), new Set());
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ first: 1, last: 6, flagged: false });
    expect(linesOf(blocks[0].segments)).toEqual(code.split("\n").map(shown));
    expect(lineNumbers(blocks[0])).toBe("1\n2\n3\n4\n5\n6");
  });

  it("puts a flagged line in a block of its own, between the runs around it", () => {
    const blocks = codeBlocks(revealText(code), new Set([3, 6]));
    expect(blocks.map((b) => [b.first, b.last, b.flagged])).toEqual([[1, 2, false], [3, 3, true], [4, 5, false], [6, 6, true]]);
    expect(blocks.flatMap((b) => linesOf(b.segments))).toEqual(code.split("\n").map(shown));
    expect(blocks[1].segments.some((s) => s.kind === "lookalike")).toBe(true);
  });

  it("flags the first and an empty line too, and ignores findings past the end", () => {
    const blocks = codeBlocks(revealText("one\n\nthree"), new Set([1, 2, 40]));
    expect(blocks.map((b) => [b.first, b.last, linesOf(b.segments)])).toEqual([[1, 1, ["one"]], [2, 2, [""]], [3, 3, ["three"]]]);
  });

  it("makes one block of 50,000 lines: a page's elements do not grow with them", () => {
    const blocks = codeBlocks(revealText("x\n".repeat(49_999) + "x"), new Set([25_000]));
    expect(blocks.map((b) => [b.first, b.last])).toEqual([[1, 24_999], [25_000, 25_000], [25_001, 50_000]]);
    expect(blocks.every((b) => b.segments.length === 1)).toBe(true);
  });
});
