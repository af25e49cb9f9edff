import { afterEach, describe, expect, it } from "vitest";
import { setDockerClient } from "./docker-runner";
import { detectSandbox, runInSandbox } from "./select-runner";
import { buildSpec, defaultLimits } from "./spec";
import { SandboxUnavailableError } from "./types";
import { readEnv } from "@/lib/env";

const saved = { mode: process.env.SANDBOX_MODE, host: process.env.DOCKER_HOST };
const SKIP_UNAVAILABLE = readEnv("SANDBOX_TESTS") === "skip-docker";

afterEach(() => {
  for (const [key, value] of [["SANDBOX_MODE", saved.mode], ["DOCKER_HOST", saved.host]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  setDockerClient(null);
});

describe("detectSandbox / runInSandbox", () => {
  it("SANDBOX_MODE=none: unavailable with a reason, and runs are refused", async () => {
    process.env.SANDBOX_MODE = "none";
    const d = await detectSandbox({ fresh: true });
    expect(d).toMatchObject({ available: false, isolation: null, spec: null });
    expect(d.reason).toMatch(/refused/);
    const spec = buildSpec("namespace", "bwrap:/usr/bin/python3", defaultLimits({}));
    await expect(runInSandbox(spec, "print(1)")).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it("an unreachable DOCKER_HOST makes Docker unavailable, not a host run", async () => {
    process.env.SANDBOX_MODE = "docker";
    process.env.DOCKER_HOST = "tcp://127.0.0.1:1";
    setDockerClient(null); // the client reads DOCKER_HOST when created
    const d = await detectSandbox({ fresh: true });
    expect(d.available).toBe(false);
    expect(d.reason).toMatch(/SANDBOX_MODE=docker: Docker daemon does not answer/);
    const spec = buildSpec("container", "sha256:" + "0".repeat(64), defaultLimits({}));
    await expect(runInSandbox(spec, "print(1)")).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it("refuses to run a spec under a different isolation than it names", async () => {
    process.env.SANDBOX_MODE = "bwrap";
    const spec = buildSpec("container", "sha256:" + "0".repeat(64), defaultLimits({}));
    await expect(runInSandbox(spec, "print(1)")).rejects.toThrow(/disabled by SANDBOX_MODE=bwrap/);
  });

  it("refuses a spec that is not exact", async () => {
    const spec = { ...buildSpec("namespace", "bwrap:/usr/bin/python3", defaultLimits({})), user: "0:0" };
    await expect(runInSandbox(spec, "print(1)")).rejects.toThrow();
  });

  describe.each(["docker", "bwrap"] as const)("SANDBOX_MODE=%s", (mode) => {
    it("detects the forced sandbox and runs code through runInSandbox", async (ctx) => {
      process.env.SANDBOX_MODE = mode;
      const d = await detectSandbox({ fresh: true });
      if (!d.available && SKIP_UNAVAILABLE) ctx.skip();
      expect(d.available, d.reason).toBe(true);
      expect(d.isolation).toBe(mode === "docker" ? "container" : "namespace");
      const spec = d.spec!;
      if (mode === "docker") expect(spec.image).toMatch(/^sha256:[0-9a-f]{64}$/);
      const r = await runInSandbox(spec, "print(sum(range(10)))\n");
      expect(r).toMatchObject({ isolation: d.isolation, exitCode: 0, stdout: "45\n" });
    });
  });

  it("refuses a container spec whose image id is not on the Docker host", async (ctx) => {
    process.env.SANDBOX_MODE = "docker";
    const d = await detectSandbox({ fresh: true });
    if (!d.available && SKIP_UNAVAILABLE) ctx.skip();
    const spec = { ...d.spec!, image: "sha256:" + "0".repeat(64) };
    await expect(runInSandbox(spec, "print(1)")).rejects.toThrow(/not present on the Docker host/);
  });
});
