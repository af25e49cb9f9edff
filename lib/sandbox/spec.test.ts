import { describe, expect, it } from "vitest";
import { buildSpec, defaultLimits, parseSandboxSpec, SandboxConfigError } from "./spec";

const IMAGE = "sha256:" + "a".repeat(64);

describe("sandbox spec", () => {
  it("has the documented defaults and only integers and strings", () => {
    const spec = buildSpec("container", IMAGE, defaultLimits({}));
    expect(spec).toEqual({
      isolation: "container",
      image: IMAGE,
      memoryBytes: 256 * 1024 * 1024,
      nanoCpus: 1_000_000_000,
      pidsLimit: 64,
      timeoutMs: 10_000,
      outputLimitChars: 10_000,
      tmpfsBytes: 64 * 1024 * 1024,
      fileSizeBytes: 16 * 1024 * 1024,
      openFiles: 64,
      network: "none",
      user: "65534:65534",
    });
    for (const value of Object.values(spec)) {
      expect(typeof value === "string" || Number.isSafeInteger(value)).toBe(true);
    }
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it("reads limits from the environment", () => {
    const limits = defaultLimits({ SANDBOX_MEMORY_MB: "512", SANDBOX_TIMEOUT_MS: "2500", SANDBOX_OUTPUT_LIMIT: "500", SANDBOX_CPU_MILLIS: "500" });
    expect(limits).toMatchObject({ memoryBytes: 512 * 1024 * 1024, timeoutMs: 2500, outputLimitChars: 500, nanoCpus: 500_000_000 });
  });

  it("refuses a malformed limit instead of silently defaulting", () => {
    expect(() => defaultLimits({ SANDBOX_MEMORY_MB: "lots" })).toThrow(SandboxConfigError);
    expect(() => defaultLimits({ SANDBOX_TIMEOUT_MS: "1.5" })).toThrow(/SANDBOX_TIMEOUT_MS/);
    expect(() => defaultLimits({ SANDBOX_OUTPUT_LIMIT: "-1" })).toThrow(SandboxConfigError);
  });

  it("rejects specs that are not exact (unknown keys, root user, tag instead of id, floats)", () => {
    const spec = buildSpec("container", IMAGE, defaultLimits({}));
    expect(() => parseSandboxSpec({ ...spec, extra: 1 })).toThrow();
    expect(() => parseSandboxSpec({ ...spec, user: "0:0" })).toThrow();
    expect(() => parseSandboxSpec({ ...spec, image: "countersign-sandbox:latest" })).toThrow();
    expect(() => parseSandboxSpec({ ...spec, memoryBytes: 1.5e8 + 0.5 })).toThrow();
    expect(() => parseSandboxSpec({ ...spec, network: "bridge" })).toThrow();
    expect(parseSandboxSpec({ ...spec, isolation: "namespace", image: "bwrap:/usr/bin/python3" }).image).toBe("bwrap:/usr/bin/python3");
  });
});
