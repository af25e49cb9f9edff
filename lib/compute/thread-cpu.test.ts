import { describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { selfThreadCpuMs, selfThreadId, threadCpuMs } from "@/lib/compute/thread-cpu";

const linux = process.platform === "linux";

describe.runIf(linux)("thread CPU time from /proc", () => {
  it("counts the thread's own work and not its waiting, read from inside or by its id", async () => {
    const tid = selfThreadId();
    expect(tid).toBeGreaterThan(0);
    const before = selfThreadCpuMs()!;
    expect(threadCpuMs(tid)).toBeGreaterThanOrEqual(before);

    await sleep(300); // waiting uses no CPU (a tick or two of timer work at most)
    const afterSleep = selfThreadCpuMs()!;
    expect(afterSleep - before).toBeLessThan(100);

    // Busy for at least 200 ms of this thread's own CPU time, however slow the machine is.
    let spins = 0;
    while (selfThreadCpuMs()! - afterSleep < 200) spins++;
    expect(spins).toBeGreaterThan(0);
    expect(threadCpuMs(tid)! - afterSleep).toBeGreaterThanOrEqual(200);
  });

  it("says nothing for a thread that does not exist", () => {
    expect(threadCpuMs(0)).toBeNull();
    expect(threadCpuMs(2 ** 31 - 1)).toBeNull();
  });
});
