import { describe, expect, it } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { computeRevisionDiff, DIFF_UNAVAILABLE } from "@/lib/approvals/compute-revision-diff";
import { codeReplacedWhole, diffCode, diffFields } from "@/lib/approvals/payload-diff";

const words = (count: number, word: (i: number) => string) => Array.from({ length: count }, (_, i) => word(i)).join(" ");
const lines = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join("\n") + "\n";

// 100,000 adversarial characters on each side, as an agent (or an edit) can send under the body limit.
const nearIdentical = {
  before: words(25_000, (i) => `w${i % 10}`),
  after: words(25_000, (i) => (i % 7 === 0 ? `x${i % 10}` : `w${i % 10}`)),
};
const noSpaces = { before: "a".repeat(100_000), after: `${"a".repeat(50_000)}b${"a".repeat(49_999)}` };
const code = {
  before: lines(25_000, (i) => `l${i % 10}`),
  after: lines(25_000, (i) => (i % 7 === 0 ? `x${i % 10}` : `l${i % 10}`)),
};

describe("computeRevisionDiff on 100,000 adversarial characters", () => {
  it("word-diffs two long near-identical texts with many small differences off the request thread", async () => {
    const before = { reason: nearIdentical.before, amount_minor: 100 };
    const after = { reason: nearIdentical.after, amount_minor: 200 };
    const { result, turns } = await whileTurning(() => computeRevisionDiff({ before, after, prefix: "", words: true, code: null }));
    expect(turns).toBeGreaterThan(0);
    // Exactly what the diff computes on any thread (here: shown whole, the texts differ in too many words).
    expect(result).toEqual({ fields: diffFields(before, after, "", { words: true }) });
    expect(result.fields.map((f) => f.path)).toEqual(["amount_minor", "reason"]);
    expect(result.unavailable).toBeUndefined();
  });

  // No turn count here: one word each side is quick to diff, and the pool's answer can arrive
  // before the loop's first check phase. The two tests around it prove the work leaves the thread.
  it("word-diffs a long text without spaces as two whole words, never cut", async () => {
    const result = await computeRevisionDiff({ before: { body: noSpaces.before }, after: { body: noSpaces.after }, prefix: "", words: true, code: null });
    const [body] = result.fields;
    expect(body).toMatchObject({ path: "body", change: "changed", before: noSpaces.before, after: noSpaces.after });
    // One word each side: the whole word removed, the whole word added — both versions in full, never cut.
    expect(body.words).toEqual([
      { kind: "removed", text: noSpaces.before },
      { kind: "added", text: noSpaces.after },
    ]);
  });

  it("line-diffs long code with many changed lines off the request thread, with the snapshot prefix kept", async () => {
    const { result, turns } = await whileTurning(() =>
      computeRevisionDiff({ before: { language: "python" }, after: { language: "python" }, prefix: "snapshot", words: false, code }),
    );
    expect(turns).toBeGreaterThan(0);
    expect(result).toEqual({ fields: [], code: diffCode(code.before, code.after) });
  });

  it("past its budget shows both versions whole and says so, never a partial diff", async () => {
    const before = { reason: nearIdentical.before, note: "kept" };
    const after = { reason: nearIdentical.after, note: "kept" };
    const { result, turns } = await whileTurning(() => computeRevisionDiff({ before, after, prefix: "", words: true, code }, { budgetMs: 1 }));
    expect(turns).toBeGreaterThan(0);
    expect(result.unavailable).toBe(DIFF_UNAVAILABLE);
    expect(result.fields).toEqual([{ path: "reason", change: "changed", before: nearIdentical.before, after: nearIdentical.after }]);
    expect(result.code).toEqual(codeReplacedWhole(code.before, code.after));
    expect(result.code).toEqual([
      { kind: "removed", text: code.before.slice(0, -1) },
      { kind: "added", text: code.after.slice(0, -1) },
    ]);
  });
});
