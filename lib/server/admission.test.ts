import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { createAdmission } from "@/lib/server/admission";

describe("admission: requests enter a few per turn of the event loop, people's first", () => {
  it("starts at most perTurn per turn, in arrival order, and lets the loop run between batches", async () => {
    const admission = createAdmission({ perTurn: 8, agentShare: 2, maxWaiting: { people: 100, agents: 100 } });
    const started: number[] = [];
    for (let i = 0; i < 20; i++) expect(admission.admit("agents", () => started.push(i))).toBe(true);
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

  it("refuses past a lane's maxWaiting, queuing nothing, and takes requests again once the lane drains", async () => {
    const admission = createAdmission({ perTurn: 2, agentShare: 1, maxWaiting: { people: 1, agents: 3 } });
    const started: string[] = [];
    for (const name of ["a", "b", "c"]) expect(admission.admit("agents", () => started.push(name))).toBe(true);
    expect(admission.admit("agents", () => started.push("refused"))).toBe(false);
    // Agents filling their lane do not close people's.
    expect(admission.admit("people", () => started.push("P"))).toBe(true);
    expect(admission.admit("people", () => started.push("refused"))).toBe(false);
    expect(admission.waiting).toBe(4);
    await nextTurn();
    await nextTurn();
    await nextTurn();
    expect(started).toEqual(["P", "a", "b", "c"]);
    expect(admission.admit("agents", () => started.push("d"))).toBe(true);
    await nextTurn();
    expect(started).toEqual(["P", "a", "b", "c", "d"]);
  });

  it("starts people's requests ahead of agents' that arrived first, leaving agents their share of every turn", async () => {
    const admission = createAdmission({ perTurn: 4, agentShare: 1, maxWaiting: { people: 100, agents: 100 } });
    const started: string[] = [];
    for (let i = 0; i < 6; i++) admission.admit("agents", () => started.push(`a${i}`));
    for (let i = 0; i < 6; i++) admission.admit("people", () => started.push(`p${i}`));
    await nextTurn();
    // Behind six agents' requests, people's still go first: three of the turn's four starts, and one agent's.
    expect(started).toEqual(["p0", "p1", "p2", "a0"]);
    await nextTurn();
    expect(started.slice(4)).toEqual(["p3", "p4", "p5", "a1"]);
    // People's lane empty: agents take whole turns again, in arrival order.
    await nextTurn();
    expect(started.slice(8)).toEqual(["a2", "a3", "a4", "a5"]);
    expect(admission.waiting).toBe(0);
  });

  it("a request that fails to start does not strand the others of its batch", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const admission = createAdmission({ perTurn: 4, agentShare: 1, maxWaiting: { people: 10, agents: 10 } });
    const started: number[] = [];
    admission.admit("people", () => started.push(1));
    admission.admit("people", () => {
      throw new Error("boom");
    });
    admission.admit("people", () => started.push(3));
    await nextTurn();
    expect(started).toEqual([1, 3]);
    expect(logged).toHaveBeenCalledWith("A request failed to start: boom");
    logged.mockRestore();
  });

  it("refuses a pace that is not a positive whole number", () => {
    const lanes = { people: 1, agents: 1 };
    expect(() => createAdmission({ perTurn: 0, agentShare: 1, maxWaiting: lanes })).toThrow(/positive whole numbers/);
    expect(() => createAdmission({ perTurn: 1.5, agentShare: 1, maxWaiting: lanes })).toThrow(/positive whole numbers/);
    expect(() => createAdmission({ perTurn: 2, agentShare: 1, maxWaiting: { people: 1, agents: -1 } })).toThrow(/positive whole numbers/);
    // Agents' share must leave people room, and must be at least one start.
    expect(() => createAdmission({ perTurn: 2, agentShare: 2, maxWaiting: lanes })).toThrow(/agentShare below perTurn/);
    expect(() => createAdmission({ perTurn: 2, agentShare: 0, maxWaiting: lanes })).toThrow(/positive whole numbers/);
  });
});
