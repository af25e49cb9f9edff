import { describe, expect, it } from "vitest";
import { createFailureCoalescer, type CoalescedFailure } from "@/lib/auth/coalesce-failures";

/** Background writes land when a loaded machine gets to them: waited for, not timed (expect.poll's default is 1 s). */
const EVENTUALLY = { timeout: 30_000 };

function recording(options: { windowMs?: number; maxKeys?: number; failWrites?: boolean } = {}) {
  const written: Array<CoalescedFailure<string[]>> = [];
  const coalescer = createFailureCoalescer<string[]>({
    windowMs: options.windowMs ?? 60_000,
    maxKeys: options.maxKeys ?? 100,
    label: "test failures",
    merge: (kept, next) => [...kept, ...next],
    write: async (failure) => {
      if (options.failWrites) throw new Error("database down");
      written.push(failure);
    },
  });
  return { coalescer, written };
}

describe("createFailureCoalescer", () => {
  it("counts failures per key in memory and writes one record per key when the window closes", async () => {
    const { coalescer, written } = recording();
    for (let i = 0; i < 50; i++) coalescer.note("key-a", [`a${i}`]);
    coalescer.note("key-b", ["b0"]);
    expect(written).toEqual([]);
    await coalescer.flush();
    expect(written.map((w) => [w.attempts, w.detail.length, w.windowSeconds])).toEqual([[50, 50, 60], [1, 1, 60]]);
    expect(written[0].lastAt.getTime()).toBeGreaterThanOrEqual(written[0].firstAt.getTime());
    await coalescer.flush();
    expect(written).toHaveLength(2);
  });

  it("closes a window on its own after windowMs, and a later failure opens a new one", async () => {
    const { coalescer, written } = recording({ windowMs: 50 });
    coalescer.note("key", ["1"]);
    coalescer.note("key", ["2"]);
    await expect.poll(() => written.length, EVENTUALLY).toBe(1);
    coalescer.note("key", ["3"]);
    await expect.poll(() => written.length, EVENTUALLY).toBe(2);
    expect(written.map((w) => w.attempts)).toEqual([2, 1]);
  });

  it("holds at most maxKeys open windows: past it, every open window is written early", async () => {
    const { coalescer, written } = recording({ maxKeys: 3 });
    for (const key of ["a", "b", "c"]) coalescer.note(key, [key]);
    expect(written).toEqual([]);
    coalescer.note("d", ["d"]);
    await expect.poll(() => written.length, EVENTUALLY).toBe(3);
    await coalescer.flush();
    expect(written.map((w) => w.detail[0])).toEqual(["a", "b", "c", "d"]);
  });

  it("a write that fails is logged and does not reject the flush", async () => {
    const { coalescer } = recording({ failWrites: true });
    coalescer.note("key", ["x"]);
    await expect(coalescer.flush()).resolves.toBeUndefined();
  });
});
