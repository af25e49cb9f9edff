import { describe, expect, it } from "vitest";
import { SubstringIndex } from "./substring-index";

// Deterministic pseudo-random strings (a failure must be reproducible).
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 0x100000000;
  };
  return (maxLength: number, alphabet: string[]) =>
    Array.from({ length: 1 + Math.floor(next() * maxLength) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
}

const longestSharedRunByBruteForce = (texts: string[], s: string): number => {
  let best = 0;
  for (let i = 0; i < s.length; i++) {
    for (let j = i + best + 1; j <= s.length && texts.some((t) => t.includes(s.slice(i, j))); j++) best = j - i;
  }
  return best;
};

describe("SubstringIndex", () => {
  it("agrees with includes on small random texts and queries", () => {
    const random = generator(13);
    for (const alphabet of [["a", "b"], ["a", "b", "c"], ["a", "é", "\u{1F600}"]]) {
      for (let round = 0; round < 300; round++) {
        const texts = Array.from({ length: 1 + (round % 3) }, () => random(12, alphabet));
        const index = new SubstringIndex(texts);
        for (let q = 0; q < 5; q++) {
          const s = random(8, alphabet);
          expect(index.contains(s), `${JSON.stringify(texts)} ∋ ${JSON.stringify(s)}`).toBe(texts.some((t) => t.includes(s)));
          expect(index.longestSharedRun(s)).toBe(longestSharedRunByBruteForce(texts, s));
        }
      }
    }
  });

  it("never matches across two texts", () => {
    const index = new SubstringIndex(["hello", "world"]);
    expect(index.contains("hello")).toBe(true);
    expect(index.contains("helloworld")).toBe(false);
    expect(index.longestSharedRun("xxhelloworldxx")).toBe(5);
  });

  it("is empty for no texts", () => {
    const index = new SubstringIndex([]);
    expect(index.contains("a")).toBe(false);
    expect(index.longestSharedRun("abc")).toBe(0);
  });

  // Repetitive text is where `includes` is slowest (seconds for these sizes, per pair).
  it("answers for 100,000-character repetitive texts", () => {
    const n = 100_000;
    const index = new SubstringIndex(["a".repeat(2 * n)]);
    const query = "a".repeat(n / 2) + "b" + "a".repeat(n / 2 - 1);
    expect(index.contains(query)).toBe(false);
    expect(index.longestSharedRun(query)).toBe(n / 2);
    expect(index.contains("a".repeat(n))).toBe(true);
  });
});
