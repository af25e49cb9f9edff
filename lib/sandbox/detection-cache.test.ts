import { afterEach, describe, expect, it, vi } from "vitest";
import { detectSandbox } from "@/lib/sandbox/select-runner";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("the sandbox detection cache", () => {
  it("answers with the last detection while a new one runs once it is 10 s old, and then with the new one", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    vi.stubEnv("SANDBOX_MODE", "none");
    vi.stubEnv("SANDBOX_IMAGE", `cache-test-${Math.random()}`);
    const first = await detectSandbox();
    expect(first.available).toBe(false);
    expect(await detectSandbox()).toBe(first); // cached

    vi.advanceTimersByTime(11_000);
    // Stale: the caller is not kept waiting for the new probe; it gets the last answer at once.
    const stale = detectSandbox();
    expect(await stale).toBe(first);
    // The refresh it started has landed: a new detection object, equal in content.
    await new Promise((resolve) => setImmediate(resolve));
    const next = await detectSandbox();
    expect(next).not.toBe(first);
    expect(next).toEqual(first);
  });

  it("waits for a new detection when asked for a fresh one, or when the mode changed", async () => {
    vi.stubEnv("SANDBOX_MODE", "none");
    const before = await detectSandbox();
    expect(await detectSandbox({ fresh: true })).not.toBe(before);
    vi.stubEnv("SANDBOX_MODE", "bogus-mode");
    expect((await detectSandbox()).reason).not.toBe(before.reason);
  });
});
