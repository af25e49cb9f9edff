import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { createAdmission } from "@/lib/server/admission";

describe("admission: requests enter a few per turn of the event loop", () => {
  it("starts at most perTurn per turn, in arrival order, and lets the loop run between batches", async () => {
    const admission = createAdmission({ perTurn: 8, maxWaiting: 100 });
    const started: number[] = [];
    for (let i = 0; i < 20; i++) expect(admission.admit(() => started.push(i))).toBe(true);
    expect(started).toEqual([]);
    expect(admission.waiting).toBe(20);
    // Something queued after the 20 (a probe's callback, say) runs after the first batch, not after all 20.
    const seenBetween = new Promise<number>((resolve) => setImmediate(() => resolve(started.length)));
    expect(await seenBetween).toBe(8);
    await nextTurn();
    expect(started).toHaveLength(16);
    await nextTurn();
    expect(started).toEqual([...Array(20).keys()]);
    expect(admission.waiting).toBe(0);
  });

  it("refuses past maxWaiting, queuing nothing, and takes requests again once the queue drains", async () => {
    const admission = createAdmission({ perTurn: 2, maxWaiting: 3 });
    const started: string[] = [];
    for (const name of ["a", "b", "c"]) expect(admission.admit(() => started.push(name))).toBe(true);
    expect(admission.admit(() => started.push("refused"))).toBe(false);
    expect(admission.waiting).toBe(3);
    await nextTurn();
    await nextTurn();
    expect(started).toEqual(["a", "b", "c"]);
    expect(admission.admit(() => started.push("d"))).toBe(true);
    await nextTurn();
    expect(started).toEqual(["a", "b", "c", "d"]);
  });

  it("a request that fails to start does not strand the others of its batch", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const admission = createAdmission({ perTurn: 4, maxWaiting: 10 });
    const started: number[] = [];
    admission.admit(() => started.push(1));
    admission.admit(() => {
      throw new Error("boom");
    });
    admission.admit(() => started.push(3));
    await nextTurn();
    expect(started).toEqual([1, 3]);
    expect(logged).toHaveBeenCalledWith("A request failed to start: boom");
    logged.mockRestore();
  });

  it("refuses a pace that is not a positive whole number", () => {
    expect(() => createAdmission({ perTurn: 0, maxWaiting: 1 })).toThrow(/positive whole numbers/);
    expect(() => createAdmission({ perTurn: 1.5, maxWaiting: 1 })).toThrow(/positive whole numbers/);
    expect(() => createAdmission({ perTurn: 1, maxWaiting: -1 })).toThrow(/positive whole numbers/);
  });
});
