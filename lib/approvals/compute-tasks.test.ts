import { describe, expect, it } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { runCompute } from "@/lib/compute/compute-pool";
import { compareStatesTask } from "@/lib/approvals/compute";
import { diffFields } from "@/lib/approvals/payload-diff";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";

describe("compareStates on the compute pool", () => {
  it("hashes and diffs states of 100,000 adversarial characters off the request thread, as the request thread would", async () => {
    // An upstream tool's pinned description (part of its state) rewritten in many small places, and one without spaces.
    const before = { description: "ab ".repeat(33_334), title: "x".repeat(100_000) };
    const now = { description: "ab ".repeat(33_334).replace(/ab /g, (m, i: number) => (i % 21 === 0 ? "aB " : m)), title: "x".repeat(100_000) };
    const unchanged = { description: "z".repeat(100_000) };
    const items = [
      { atRequest: before, atRequestHash: snapshotHash(before), now },
      { atRequest: unchanged, atRequestHash: snapshotHash(unchanged), now: unchanged },
    ];
    const { result, turns } = await whileTurning(() => runCompute(compareStatesTask, items, { what: "state comparison" }));
    expect(turns).toBeGreaterThan(0);
    expect(result).toEqual([
      { hash: snapshotHash(now), changes: diffFields(before, now) },
      { hash: snapshotHash(unchanged), changes: null },
    ]);
    expect(result[0].changes?.map((c) => c.path)).toEqual(["description"]);
  });
});
