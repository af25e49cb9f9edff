// Chooses the sandbox and dispatches runs. Invariant 7: code never runs outside a sandbox — when
// none is available, runs are refused with a reason; there is no host fallback.
import { assertBwrapReady, bwrapImage, probeBwrap, runInBwrap } from "./bwrap-runner";
import { dockerClient, resolveSandboxImageId, runInDocker, sandboxImageTag, type DockerRunOptions } from "./docker-runner";
import { buildSpec, defaultLimits, parseSandboxSpec, type SandboxIsolation, type SandboxSpec } from "./spec";
import { SandboxUnavailableError, type RunOptions, type SandboxRunResult } from "./types";
import { EnvError, processEnv, readEnv } from "@/lib/env";

export type SandboxDetection = {
  available: boolean;
  isolation: SandboxIsolation | null;
  reason: string;
  /** The spec new approvals should carry (limits from env, image pinned by id). */
  spec: SandboxSpec | null;
};

type SandboxMode = "auto" | "docker" | "bwrap" | "none";

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

async function detectBwrap(): Promise<SandboxDetection> {
  let spec: SandboxSpec;
  try {
    spec = buildSpec("namespace", bwrapImage(), defaultLimits());
    assertBwrapReady(spec);
  } catch (err) {
    return unavailable(`bubblewrap unusable: ${message(err)}`);
  }
  const probe = await probeBwrap(spec);
  if (!probe.ok) return unavailable(probe.reason);
  return { available: true, isolation: "namespace", reason: "bubblewrap namespace sandbox (Docker unavailable)", spec };
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
  const mode = `${processEnv().SANDBOX_MODE ?? ""}|${processEnv().SANDBOX_IMAGE ?? ""}`;
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
  try {
    mode = sandboxMode();
  } catch (err) {
    return unavailable(message(err));
  }
  if (mode === "none") return unavailable("sandbox disabled by SANDBOX_MODE=none; code execution is refused");
  if (mode === "docker") return describeFailure(await detectDocker(), "SANDBOX_MODE=docker");
  if (mode === "bwrap") return describeFailure(await detectBwrap(), "SANDBOX_MODE=bwrap");

  const docker = await detectDocker();
  if (docker.available) return docker;
  const bwrap = await detectBwrap();
  if (bwrap.available) return { ...bwrap, reason: `${bwrap.reason}; ${docker.reason}` };
  return unavailable(`no sandbox available, code execution is refused: ${docker.reason}; ${bwrap.reason}`);
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
  if (checked.isolation === "container") {
    if (mode === "bwrap") throw new SandboxUnavailableError("container sandbox disabled by SANDBOX_MODE=bwrap");
    // No ping/inspect first: a pooled container needs none, and a cold start that fails says why.
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
