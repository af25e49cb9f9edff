import { afterEach, describe, expect, it, vi } from "vitest";
import { budgetVerdict, computeTask, computeThreads, runCompute } from "@/lib/compute/compute-pool";
import { hashRevisionTask, judgePayloadTask } from "@/lib/approvals/compute";
import type { RevisionPayload } from "@/lib/approvals/action-revision";
import { revisionHash } from "@/lib/approvals/action-revision";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { urgently } from "@/lib/scheduling/urgency";
import type * as TestTasks from "@/tests/compute-test-tasks";

// The other test files run on one compute thread (vitest.config.ts); this one tests the pool as the
// console runs it on two cores: several threads, each busy, with work queued behind them.
process.env.COUNTERSIGN_COMPUTE_THREADS = "2";

const sleepTask = computeTask<typeof TestTasks, "sleep">("tests/compute-test-tasks.ts", "sleep");

const payload = (args: RevisionPayload["args"]): RevisionPayload => ({
  tenantId: "tenant", tool: "get_invoice", kind: "tool", args, code: null, language: null, sandboxSpec: null, revision: 1, policyVersion: 1,
});

const inspect = (code: string, budgetMs?: number) =>
  runCompute(judgePayloadTask,
    {
      code,
      risk: { tool: "run_python", toolClass: ["code-exec"], args: { code }, context: {} },
      policy: { json: JSON.stringify(DEFAULT_POLICY), cacheKey: "test:1" },
      policyInput: { tool: "run_python", args: { code }, context: { requesterRoles: ["requester"] } },
      refusal: null,
      payload: { ...payload(null), tool: "run_python", kind: "code", code, language: "python", sandboxSpec: { image: "test" } },
    },
    { what: "code", budgetMs },
  );

afterEach(() => vi.unstubAllEnvs());

describe("compute pool", () => {
  it("hashes on a worker exactly as on the request thread", async () => {
    const p = payload({ invoiceId: "inv_1", note: "é ✓" });
    expect(await runCompute(hashRevisionTask, p, { what: "payload" })).toEqual(revisionHash(p));
  });

  it("pre-scans code, tags its risk and applies the policy in one task", async () => {
    const blocked = await inspect("import os\nos.system('id')\n");
    expect(blocked.scanFindings.map((f) => f.rule)).toContain("banned-import");
    expect(blocked.riskTags.map((t) => t.id)).toContain("scan.banned-import");
    expect(blocked.decision).toMatchObject({ effect: "deny", reason: expect.stringContaining("blocked before review") });
    expect(blocked.hash.hash).toMatch(/^[0-9a-f]{64}$/);
    const fine = await inspect("print(1)\n");
    expect(fine.refusal).toBeNull();
    expect(fine.decision.effect).toBe("require_approval");
  });

  it("counts an item's CPU time against its budget: a slow machine's wall-clock time alone does not refuse it, but a starved item still ends", () => {
    // Five seconds on the clock, 300 ms of CPU: the machine was busy elsewhere, the item goes on.
    expect(budgetVerdict({ cpuUsedMs: 300, wallMs: 5_000, budgetMs: 2_000 })).toEqual({ stop: false, recheckInMs: 1_700 });
    expect(budgetVerdict({ cpuUsedMs: 1_990, wallMs: 2_000, budgetMs: 2_000 })).toEqual({ stop: false, recheckInMs: 20 });
    expect(budgetVerdict({ cpuUsedMs: 2_000, wallMs: 2_000, budgetMs: 2_000 })).toEqual({ stop: true });
    // Never more than ten times the budget on the clock, however little CPU it got.
    expect(budgetVerdict({ cpuUsedMs: 10, wallMs: 19_990, budgetMs: 2_000 })).toEqual({ stop: false, recheckInMs: 20 });
    expect(budgetVerdict({ cpuUsedMs: 10, wallMs: 20_000, budgetMs: 2_000 })).toEqual({ stop: true });
    // Where the thread's CPU time cannot be read, the budget is wall-clock time.
    expect(budgetVerdict({ cpuUsedMs: null, wallMs: 2_000, budgetMs: 2_000 })).toEqual({ stop: true });
  });

  it("refuses an item past its CPU-time budget as too_complex, and the pool keeps working", async () => {
    // 100,000 characters of code take the parser far longer than 1 ms.
    const code = "x = 1\n".repeat(16_000);
    await expect(inspect(code, 1)).rejects.toMatchObject({ code: "too_complex", status: 422 });
    // The stopped thread was replaced: the next item runs normally.
    const ok = await inspect("print(1)\n");
    expect(ok.refusal).toBeNull();
  });

  it("gives every queued item its own budget: items waiting behind a slow one are not refused for the wait", async () => {
    // Every thread held 1.5 s by a task that uses no CPU; the items queued behind them have a
    // 300 ms budget each. Counted from the queue, they would all be refused; counted from their
    // own start, their few milliseconds of CPU pass.
    const held = Array.from({ length: computeThreads() }, () => runCompute(sleepTask, 1_500, { what: "sleep", budgetMs: 60_000 }));
    const queued = Array.from({ length: 2 * computeThreads() }, (_, n) => runCompute(hashRevisionTask, payload({ n }), { what: "payload", budgetMs: 300 }));
    const results = await Promise.allSettled([...held, ...queued]);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r.reason as { code?: string }).code)).toEqual([]);
  });

  it("reads its budget from COUNTERSIGN_COMPUTE_BUDGET_MS", async () => {
    vi.stubEnv("COUNTERSIGN_COMPUTE_BUDGET_MS", "1");
    await expect(inspect("y = 2\n".repeat(16_000))).rejects.toMatchObject({ code: "too_complex" });
  });

  /** The order tasks finish in when every thread is busy, ordinary work waits in the queue, and then `last` is called. */
  async function finishingOrder(last: () => Promise<unknown>): Promise<string[]> {
    const code = "x = 1\n".repeat(8_000);
    const finished: string[] = [];
    const track = (label: string, p: Promise<unknown>) => p.then(() => finished.push(label));
    const busy = Array.from({ length: computeThreads() }, (_, i) => track(`busy${i}`, inspect(code, 60_000)));
    const queued = Array.from({ length: 3 }, (_, i) => track(`queued${i}`, inspect(code, 60_000)));
    await Promise.all([...busy, ...queued, track("last", last())]);
    return finished;
  }

  it("runs an urgent task (an execution's re-hash) before ordinary tasks queued ahead of it", async () => {
    const finished = await finishingOrder(() => runCompute(hashRevisionTask, payload({ a: 1 }), { what: "payload", urgent: true }));
    expect(finished.indexOf("last"), finished.join(" ")).toBeLessThan(finished.indexOf("queued0"));
  });

  it("runs a task called from urgently work (an execution's re-proposal, holding the action's lock) as urgent without being told", async () => {
    const finished = await finishingOrder(() => urgently(() => runCompute(hashRevisionTask, payload({ a: 1 }), { what: "payload" })));
    expect(finished.indexOf("last"), finished.join(" ")).toBeLessThan(finished.indexOf("queued0"));
  });

  it("refuses ordinary work as busy once the queue is full, but not an urgent task: it waits only behind urgent ones", async () => {
    const code = "x = 1\n".repeat(8_000);
    const busy = Array.from({ length: computeThreads() }, () => inspect(code, 60_000));
    // Cheap tasks, queued behind the busy threads until the queue of ordinary work is full.
    const queued: Promise<unknown>[] = [];
    let refused: unknown = null;
    while (refused === null) {
      const next = runCompute(hashRevisionTask, payload({ n: queued.length }), { what: "payload" });
      queued.push(next.catch((error: unknown) => (refused = error)));
      await Promise.resolve();
    }
    expect(refused).toMatchObject({ code: "busy", status: 503 });
    const urgent = runCompute(hashRevisionTask, payload({ a: 1 }), { what: "payload", urgent: true });
    await expect(urgent).resolves.toEqual(revisionHash(payload({ a: 1 })));
    await Promise.all([...busy, ...queued]);
  });
});
