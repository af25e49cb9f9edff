import { describe, expect, it } from "vitest";
import { revealText } from "@/lib/review/reveal-text";
import { segmentsByLine } from "@/lib/review/segments-by-line";

describe("segmentsByLine", () => {
  it("gives each line the segments revealText gives it alone, empty lines included", () => {
    const code = 'a = "x\u202E"\n\nb = "p\u0430y"\n\u200b\u200b\nend';
    expect(segmentsByLine(revealText(code))).toEqual(code.split("\n").map(revealText));
  });
});
