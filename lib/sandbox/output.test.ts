import { describe, expect, it } from "vitest";
import { FifoLimiter } from "./concurrency";
import { OutputCollector } from "./output";
import { SandboxAbortedError } from "./types";

describe("OutputCollector", () => {
  it("keeps at most the limit across both streams and marks truncation", () => {
    const seen: string[] = [];
    const c = new OutputCollector(10, (s, t) => seen.push(`${s}:${t}`));
    c.push("stdout", Buffer.from("12345"));
    c.push("stderr", Buffer.from("abc"));
    c.push("stdout", Buffer.from("6789"));
    c.push("stdout", Buffer.from("more and more"));
    c.end();
    expect(c.text("stdout") + c.text("stderr")).toHaveLength(10);
    expect(c.text("stdout")).toBe("1234567");
    expect(c.text("stderr")).toBe("abc");
    expect(c.truncated).toBe(true);
    expect(seen).toEqual(["stdout:12345", "stderr:abc", "stdout:67"]);
  });

  it("decodes UTF-8 split across chunks", () => {
    const c = new OutputCollector(100);
    const bytes = Buffer.from("héllo ✓");
    c.push("stdout", bytes.subarray(0, 2));
    c.push("stdout", bytes.subarray(2));
    c.end();
    expect(c.text("stdout")).toBe("héllo ✓");
    expect(c.truncated).toBe(false);
  });

  it("survives a throwing listener", () => {
    const c = new OutputCollector(100, () => {
      throw new Error("client went away");
    });
    c.push("stdout", Buffer.from("x"));
    expect(c.text("stdout")).toBe("x");
  });
});

describe("FifoLimiter", () => {
  it("runs at most `limit` at once and grants in arrival order", async () => {
    const limiter = new FifoLimiter(2);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const waits = [0, 1, 2, 3].map((i) =>
      limiter.acquire().then((release) => {
        order.push(i);
        releases.push(release);
      }),
    );
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([0, 1]);
    expect(limiter.queued).toBe(2);
    releases[0]();
    releases[0](); // releasing twice must not free a second slot
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([0, 1, 2]);
    releases[1]();
    releases[2]();
    await Promise.all(waits);
    expect(order).toEqual([0, 1, 2, 3]);
    releases[3]();
    expect(limiter.running).toBe(0);
  });

  it("drops an aborted waiter from the queue", async () => {
    const limiter = new FifoLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(SandboxAbortedError);
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.running).toBe(0);
  });
});
