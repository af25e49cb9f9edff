// Chooses the sandbox and dispatches runs. Invariant 7: code never runs outside a sandbox — when
// none is available, runs are refused with a reason; there is no host fallback.
import { assertBwrapReady, bwrapImage, probeBwrap, runInBwrap } from "./bwrap-runner";
import { dockerClient, resolveSandboxImageId, runInDocker, sandboxImageTag, type DockerRunOptions } from "./docker-runner";
import { memoryEnforcement } from "./memory-cgroup";
import { assertGvisorRegistered, dockerHasGvisor, GVISOR_KERNEL_RELEASE, GVISOR_PROBE_CODE } from "./gvisor";
import { buildSpec, defaultLimits, parseSandboxSpec, type SandboxIsolation, type SandboxLimits, type SandboxSpec } from "./spec";
import { SandboxUnavailableError, type RunOptions, type SandboxRunResult } from "./types";
import { EnvError, envText, readEnv } from "@/lib/env";

export type SandboxDetection = {
  available: boolean;
  isolation: SandboxIsolation | null;
  reason: string;
  /** The spec new approvals should carry (limits from env, image pinned by id). */
  spec: SandboxSpec | null;
};

/** gVisor, for policy rules that require it: its spec, or why it cannot run here. */
export type GvisorDetection = { spec: SandboxSpec | null; reason: string };

type SandboxMode = "auto" | "docker" | "bwrap" | "none";
type SandboxRuntime = "runc" | "runsc";

function sandboxRuntime(): SandboxRuntime {
  try {
    return readEnv("SANDBOX_RUNTIME");
  } catch (error) {
    if (error instanceof EnvError) throw new SandboxUnavailableError(error.message);
    throw error;
  }
}

function sandboxMode(): SandboxMode {
  try {
    return readEnv("SANDBOX_MODE");
  } catch (error) {
    if (error instanceof EnvError) throw new SandboxUnavailableError(error.message);
    throw error;
  }
}

async function detectDocker(): Promise<SandboxDetection> {
  const tag = sandboxImageTag();
  try {
    await dockerClient().ping();
  } catch (err) {
    return unavailable(`Docker daemon does not answer (${message(err)})`);
  }
  let imageId: string;
  try {
    imageId = await resolveSandboxImageId(tag);
  } catch {
    return unavailable(`Docker answers but image ${tag} is missing (run scripts/build-sandbox-image.sh)`);
  }
  return {
    available: true,
    isolation: "container",
    reason: `Docker with image ${tag} (${imageId.slice(0, 19)}…)`,
    spec: buildSpec("container", imageId, defaultLimits()),
  };
}

/**
 * Whether gVisor can run code here, with the spec it would run under. Asked only where it matters
 * (SANDBOX_RUNTIME=runsc, or a policy rule that requires gVisor), so consoles that never use it
 * never start a probe container.
 */
export async function detectGvisor(): Promise<GvisorDetection> {
  let mode: SandboxMode;
  try {
    mode = sandboxMode();
  } catch (err) {
    return { spec: null, reason: message(err) };
  }
  if (mode === "none") return { spec: null, reason: "sandbox disabled by SANDBOX_MODE=none" };
  if (mode === "bwrap") return { spec: null, reason: "gVisor runs on Docker, which SANDBOX_MODE=bwrap keeps this console off" };
  // The cached detection already names the Docker image when Docker is in use.
  const current = await detectSandbox();
  const docker = current.spec && current.isolation !== "namespace" ? current : await detectDocker();
  if (!docker.available || !docker.spec) return { spec: null, reason: `gVisor runs on Docker: ${docker.reason}` };
  const { isolation: _isolation, image, ...limits } = docker.spec;
  return probeGvisorOnce(image, limits);
}

// A gVisor probe starts a container (~0.5 s), so a success is kept for the life of the process
// (per image and limits); a failure is retried after a minute.
const gvisorProbes = new Map<string, { at: number; result: Promise<GvisorDetection> }>();
const GVISOR_RETRY_MS = 60_000;

function probeGvisorOnce(imageId: string, limits: SandboxLimits): Promise<GvisorDetection> {
  const key = JSON.stringify([imageId, limits]);
  const cached = gvisorProbes.get(key);
  if (cached && (cached.at < 0 || performance.now() - cached.at < GVISOR_RETRY_MS)) return cached.result;
  const entry = { at: performance.now(), result: probeGvisor(imageId, limits) };
  gvisorProbes.set(key, entry);
  void entry.result.then((d) => {
    if (d.spec) entry.at = -1; // settled for good
  });
  return entry.result;
}

async function probeGvisor(imageId: string, limits: SandboxLimits): Promise<GvisorDetection> {
  const spec = buildSpec("gvisor", imageId, limits);
  try {
    if (!(await dockerHasGvisor(dockerClient()))) {
      return { spec: null, reason: "gVisor (runsc) is not registered with Docker (run scripts/ensure-system.sh as root)" };
    }
    const r = await runInDocker({ ...spec, timeoutMs: Math.max(spec.timeoutMs, 10_000) }, GVISOR_PROBE_CODE);
    if (r.exitCode === 0 && r.stdout.trim() === `countersign-probe ${GVISOR_KERNEL_RELEASE}`) return { spec, reason: "gVisor (runsc) probe ran" };
    return { spec: null, reason: `gVisor probe failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().slice(0, 300)}` };
  } catch (err) {
    return { spec: null, reason: `gVisor probe failed: ${message(err)}` };
  }
}

async function detectBwrap(): Promise<SandboxDetection> {
  let spec: SandboxSpec;
  try {
    spec = buildSpec("namespace", await bwrapImage(), defaultLimits());
    assertBwrapReady(spec);
  } catch (err) {
    return unavailable(`bubblewrap unusable: ${message(err)}`);
  }
  const probe = await probeBwrap(spec);
  if (!probe.ok) return unavailable(probe.reason);
  const memory = memoryEnforcement().description;
  return {
    available: true,
    isolation: "namespace",
    reason: `bubblewrap on the sandbox image's rootfs; memory limit: ${memory}`,
    spec,
  };
}

type DetectionCache = { mode: string; settled: SandboxDetection | null; settledAt: number; pending: Promise<SandboxDetection> | null };
let cache: DetectionCache | null = null;
const CACHE_MS = 10_000;

/**
 * Docker if the daemon answers and the image exists, else bubblewrap if a probe run works, else
 * unavailable with the reasons. SANDBOX_MODE=docker|bwrap|none forces a choice. Cached for 10 s
 * (health checks call it often); past that the last answer is still given while a new detection
 * runs, since a probe can take seconds on a loaded machine and nobody (least of all /api/health)
 * should wait for it. Pass { fresh: true } to wait for a new one.
 */
export function detectSandbox(opts: { fresh?: boolean } = {}): Promise<SandboxDetection> {
  const mode = `${envText("SANDBOX_MODE") ?? ""}|${envText("SANDBOX_IMAGE") ?? ""}|${envText("SANDBOX_RUNTIME") ?? ""}`;
  if (cache?.mode !== mode) cache = { mode, settled: null, settledAt: 0, pending: null };
  const entry = cache;
  const refresh = () =>
    (entry.pending ??= detectUncached().then(
      (detection) => {
        Object.assign(entry, { settled: detection, settledAt: performance.now(), pending: null });
        return detection;
      },
      (error: unknown) => {
        entry.pending = null;
        throw error;
      },
    ));
  if (opts.fresh || entry.settled === null) return refresh();
  if (performance.now() - entry.settledAt >= CACHE_MS) void refresh().catch(() => {});
  return Promise.resolve(entry.settled);
}

async function detectUncached(): Promise<SandboxDetection> {
  let mode: SandboxMode;
  let runtime: SandboxRuntime;
  try {
    mode = sandboxMode();
    runtime = sandboxRuntime();
  } catch (err) {
    return unavailable(message(err));
  }
  if (mode === "none") return unavailable("sandbox disabled by SANDBOX_MODE=none; code execution is refused");
  if (runtime === "runsc") return detectGvisorOnly(mode);
  if (mode === "docker") return describeFailure(await detectDocker(), "SANDBOX_MODE=docker");
  if (mode === "bwrap") return describeFailure(await detectBwrap(), "SANDBOX_MODE=bwrap");

  const docker = await detectDocker();
  if (docker.available) return docker;
  const bwrap = await detectBwrap();
  if (bwrap.available) return { ...bwrap, reason: `${bwrap.reason} (Docker unavailable: ${docker.reason})` };
  return unavailable(`no sandbox available, code execution is refused: ${docker.reason}; ${bwrap.reason}`);
}

/** SANDBOX_RUNTIME=runsc: gVisor or nothing; never a weaker level in its place. */
async function detectGvisorOnly(mode: SandboxMode): Promise<SandboxDetection> {
  const forced = "SANDBOX_RUNTIME=runsc";
  if (mode === "bwrap") return unavailable(`${forced} needs Docker, but SANDBOX_MODE=bwrap; code execution is refused`);
  const docker = await detectDocker();
  if (!docker.available || !docker.spec) return describeFailure(docker, forced);
  const { isolation: _isolation, image, ...limits } = docker.spec;
  const { spec, reason } = await probeGvisorOnce(image, limits);
  if (!spec) return unavailable(`${forced}: ${reason}; code execution is refused`);
  return { available: true, isolation: "gvisor", reason: `gVisor (runsc) on Docker: ${docker.reason}`, spec };
}

function describeFailure(d: SandboxDetection, forced: string): SandboxDetection {
  return d.available ? d : unavailable(`${forced}: ${d.reason}; code execution is refused`);
}

export type SandboxRunOptions = RunOptions & Pick<DockerRunOptions, "onContainer">;

/**
 * Runs code under exactly the given (approved) spec. Throws SandboxUnavailableError when that
 * kind of sandbox cannot run now — it never substitutes another isolation or the host.
 */
export async function runInSandbox(spec: SandboxSpec, code: string, opts: SandboxRunOptions = {}): Promise<SandboxRunResult> {
  const checked = parseSandboxSpec(spec);
  let mode: SandboxMode;
  try {
    mode = sandboxMode();
  } catch (err) {
    throw new SandboxUnavailableError(message(err));
  }
  if (mode === "none") throw new SandboxUnavailableError("sandbox disabled by SANDBOX_MODE=none");
  if (checked.isolation === "container" || checked.isolation === "gvisor") {
    if (mode === "bwrap") throw new SandboxUnavailableError(`${checked.isolation} sandbox disabled by SANDBOX_MODE=bwrap`);
    // No ping/inspect first: a pooled container needs none, and a cold start that fails says why.
    if (checked.isolation === "gvisor") await assertGvisorRegistered(dockerClient());
    return runInDocker(checked, code, opts);
  }
  if (mode === "docker") throw new SandboxUnavailableError("namespace sandbox disabled by SANDBOX_MODE=docker");
  assertBwrapReady(checked);
  return runInBwrap(checked, code, { onOutput: opts.onOutput, signal: opts.signal, datasets: opts.datasets, artifactCaps: opts.artifactCaps });
}

function unavailable(reason: string): SandboxDetection {
  return { available: false, isolation: null, reason, spec: null };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
