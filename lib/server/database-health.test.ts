import { describe, expect, it } from "vitest";
import { createDatabaseHealthMonitor } from "./database-health";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createDatabaseHealthMonitor", () => {
  it("answers probes from the background ping: the first waits for it, a flood adds no pings", async () => {
    let pings = 0;
    const monitor = createDatabaseHealthMonitor(async () => void pings++, { everyMs: 10_000 });
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => monitor.read()));
      expect(answers.every((answer) => answer.ok)).toBe(true);
      expect(answers[0]).toMatchObject({ ok: true, latencyMs: expect.any(Number) });
      expect(pings).toBe(1);
      await monitor.read();
      expect(pings).toBe(1);
    } finally {
      monitor.stop();
    }
  });

  it("pings again every interval, so a database that goes down is reported down at the next ping, and up again after", async () => {
    let up = true;
    const monitor = createDatabaseHealthMonitor(async () => {
      if (!up) throw new Error("connection refused");
    }, { everyMs: 20 });
    try {
      expect((await monitor.read()).ok).toBe(true);
      up = false;
      await expect.poll(async () => (await monitor.read()).ok, { interval: 10, timeout: 5_000 }).toBe(false);
      expect(await monitor.read()).toMatchObject({ ok: false, error: "The database did not answer." });
      up = true;
      await expect.poll(async () => (await monitor.read()).ok, { interval: 10, timeout: 5_000 }).toBe(true);
    } finally {
      monitor.stop();
    }
  });

  it("reports a database that stops answering (a ping that hangs) as down once the last answer is too old", async () => {
    let hang = false;
    const monitor = createDatabaseHealthMonitor(() => (hang ? new Promise(() => {}) : Promise.resolve()), { everyMs: 10, staleAfterMs: 100 });
    try {
      expect((await monitor.read()).ok).toBe(true);
      hang = true;
      await sleep(30); // the next ping starts, and never returns
      await expect.poll(async () => (await monitor.read()).ok, { interval: 20, timeout: 5_000 }).toBe(false);
      expect((await monitor.read()) as { error: string }).toMatchObject({ error: expect.stringMatching(/has not answered for \d+ s/) });
    } finally {
      monitor.stop();
    }
  });

  it("does not wait past the time limit for a first ping that hangs: down until the database answers", async () => {
    let answer: () => void = () => {};
    const monitor = createDatabaseHealthMonitor(() => new Promise<void>((resolve) => (answer = resolve)), { everyMs: 10_000, staleAfterMs: 100 });
    try {
      const first = await monitor.read();
      expect(first).toEqual({ ok: false, error: "The database has not answered in 0 s since the console started.", checkedAgoMs: null });
      expect((await monitor.read()).ok).toBe(false);
      answer();
      await expect.poll(async () => (await monitor.read()).ok, { interval: 10, timeout: 5_000 }).toBe(true);
    } finally {
      monitor.stop();
    }
  });
});
