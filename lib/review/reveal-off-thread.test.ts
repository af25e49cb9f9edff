import { afterEach, describe, expect, it, vi } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { revealText } from "@/lib/review/reveal-text";

const compute = vi.hoisted(() => ({ calls: [] as string[][] }));
vi.mock("@/lib/compute/compute-pool", async (original) => {
  const actual = await original<typeof import("@/lib/compute/compute-pool")>();
  return {
    ...actual,
    runCompute: ((task: { fn: string }, input: unknown, opts: unknown) => {
      if (task.fn === "revealTexts") compute.calls.push(input as string[]);
      return (actual.runCompute as (t: unknown, i: unknown, o: unknown) => Promise<unknown>)(task, input, opts);
    }) as typeof actual.runCompute,
  };
});

const { revealOffThread } = await import("@/lib/review/reveal-off-thread");

// 100,000 characters each: two hidden characters that alternate (no run to count), and Cyrillic
// letters inside Latin words; the most work revealText does per character.
const HIDDEN = "\u200b\u200c".repeat(50_000);
const LOOKALIKES = "pаypаl ".repeat(14_286);

describe("revealOffThread: untrusted text is revealed on the compute pool", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    compute.calls = [];
  });

  it("reveals 100,000 hostile characters while the event loop keeps turning, exactly as revealText does", async () => {
    const { result, turns } = await whileTurning(() => Promise.all([revealOffThread(HIDDEN), revealOffThread(LOOKALIKES), revealOffThread("plain")]));
    // Revealed on this thread, the loop would turn at most once before and once after.
    expect(turns).toBeGreaterThan(2);
    expect(result).toEqual([revealText(HIDDEN), revealText(LOOKALIKES), revealText("plain")]);
    expect(result[0]).toContainEqual({ kind: "hidden", label: "U+200B", name: expect.any(String), count: 1 });
  });

  it("sends the texts a page asks for in one turn as one task, each distinct text once", async () => {
    const words = ["a", "b\u202e", "a", "c", "b\u202e"];
    const revealed = await Promise.all(words.map(revealOffThread));
    expect(compute.calls).toEqual([["a", "b\u202e", "c"]]);
    expect(revealed).toEqual(words.map(revealText));
  });

  it("shows nothing of a text past its budget, only that it was not shown and its length", async () => {
    vi.stubEnv("COUNTERSIGN_COMPUTE_BUDGET_MS", "1");
    expect(await revealOffThread(HIDDEN)).toEqual({ unrevealed: true, length: 100_000 });
  });
});
