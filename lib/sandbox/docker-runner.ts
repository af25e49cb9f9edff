// Runs Python in a throw-away Docker container (SPEC "Sandbox"). dockerode honours DOCKER_HOST, so
// the daemon may be remote. Every container serves one run and is force-removed after it; with a
// warm pool (container-pool.ts) it was created and started ahead of need.
import Docker from "dockerode";
import { sandboxLimiter } from "./concurrency";
import { ownerIsGone, processOwner, SANDBOX_OWNER_LABEL } from "./container-owner";
import { delay, removeContainer, startContainer, type ReadyContainer } from "./docker-container";
import { collectArtifactsFromContainer, COLLECT_WAIT_SECONDS, EndMarkerScanner, FILES_RUN_SCRIPT, filesTmpfs, newRunMarker, putDatasets, type RunEnd } from "./docker-files";
import { artifactCaps } from "./run-files";
import { OutputCollector } from "./output";
import { dockerRuntime, hostPidsLimit } from "./gvisor";
import { oomKillsOfProcess } from "./memory-cgroup";
import { leaseRunUid } from "./run-uid";
import { parseUser, SANDBOX_SHM_BYTES, type SandboxSpec } from "./spec";
import { WARM_LAUNCHER } from "./warm-interpreter";
import { SandboxUnavailableError, type CollectedArtifacts, type RunOptions, type SandboxRunResult } from "./types";
import { readEnv } from "@/lib/env";

export const SANDBOX_LABEL = "countersign.sandbox";
export const DEFAULT_SANDBOX_IMAGE_TAG = "countersign-sandbox:latest";

// Limits, not secrets: numeric libraries would otherwise start a thread per host core and hit the
// pids limit on a large machine; the CPU quota makes the extra threads useless anyway.
const CONTAINER_ENV = [
  "PATH=/usr/local/bin:/usr/bin:/bin",
  "LANG=C.UTF-8",
  "OPENBLAS_NUM_THREADS=1",
  "OMP_NUM_THREADS=1",
];

/** How long after the runner's own deadline the in-container `timeout` kills the run. */
const IN_CONTAINER_GRACE_MS = 2000;

let client: Docker | null = null;

/** The shared client. `new Docker()` reads DOCKER_HOST / DOCKER_TLS_VERIFY / DOCKER_CERT_PATH. */
export function dockerClient(): Docker {
  client ??= new Docker();
  return client;
}

/** For tests and tools that talk to another daemon. */
export function setDockerClient(docker: Docker | null): void {
  client = docker;
}

export function sandboxImageTag(): string {
  return readEnv("SANDBOX_IMAGE") ?? DEFAULT_SANDBOX_IMAGE_TAG;
}

/** Resolves the image tag to its immutable id ("sha256:…"); the spec carries the id. */
export async function resolveSandboxImageId(tag: string = sandboxImageTag(), docker: Docker = dockerClient()): Promise<string> {
  const info = await docker.getImage(tag).inspect();
  return info.Id;
}

/** Throws SandboxUnavailableError unless the daemon answers and the exact image id exists. */
export async function assertDockerReady(image: string, docker: Docker = dockerClient()): Promise<void> {
  try {
    await docker.ping();
  } catch (err) {
    throw new SandboxUnavailableError(`Docker daemon does not answer: ${errorMessage(err)}`, { cause: err });
  }
  try {
    await docker.getImage(image).inspect();
  } catch (err) {
    throw new SandboxUnavailableError(`sandbox image ${image} is not present on the Docker host (rebuilt or removed?)`, { cause: err });
  }
}

/**
 * The create options for one run: every hardening field lives in HostConfig (top level is ignored).
 * `runUid`: the run's own uid (run-uid.ts), so its processes count against no other run's
 * RLIMIT_NPROC; the group is the spec's.
 */
export function containerOptions(spec: SandboxSpec, runUid: number = parseUser(spec.user).uid): Docker.ContainerCreateOptions {
  return {
    Image: spec.image,
    // The time limit holds inside the container too, so a run whose console died mid-run still
    // ends: coreutils `timeout` SIGKILLs the code's process group a grace period after the limit
    // (the runner's own timer kills it at the limit). -I: isolated mode (no PYTHON* variables, no
    // user site); -u: unbuffered, so output streams to the reviewer as it is printed; -: code from stdin.
    // FILES_RUN_SCRIPT (docker-files.ts) runs `timeout … python3 -I -u -` and, when the code left
    // files in /mnt/out, keeps the container up (at most COLLECT_WAIT_SECONDS) until they are read.
    Cmd: ["sh", "-c", FILES_RUN_SCRIPT, "sh", `${inContainerLimitSeconds(spec)}s`, String(COLLECT_WAIT_SECONDS)],
    User: `${runUid}:${parseUser(spec.user).gid}`,
    WorkingDir: "/tmp",
    Env: CONTAINER_ENV,
    Labels: { [SANDBOX_LABEL]: "1", [SANDBOX_OWNER_LABEL]: processOwner() },
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      Runtime: dockerRuntime(spec.isolation), // runsc for "gvisor" (gvisor.ts)
      NetworkMode: "none",
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${spec.tmpfsBytes}`, ...filesTmpfs(artifactCaps()) },
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Privileged: false,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes, // equal to Memory: no swap on top
      NanoCpus: spec.nanoCpus,
      PidsLimit: hostPidsLimit(spec),
      Ulimits: [
        { Name: "fsize", Soft: spec.fileSizeBytes, Hard: spec.fileSizeBytes },
        { Name: "nofile", Soft: spec.openFiles, Hard: spec.openFiles },
        // RLIMIT_NPROC counts per uid host-wide (the run's own uid); PidsLimit is the per-container bound.
        { Name: "nproc", Soft: spec.pidsLimit, Hard: spec.pidsLimit },
      ],
      IpcMode: "private",
      ShmSize: SANDBOX_SHM_BYTES, // Docker's default is a 64 MB /dev/shm outside the tmpfs limit
      AutoRemove: false,
      // Output reaches us through attach; a log driver would also write it to the host's disk.
      LogConfig: { Type: "none", Config: {} },
    },
  };
}

/**
 * The create options of a pooled container: the cold run's options exactly, except the main
 * process: the warm interpreter (warm-interpreter.ts), Python with the analysis libraries imported
 * ahead of need, which waits on stdin for the go line and the program and holds the same
 * in-container time limit from the go line on, so the container can be started long before its run.
 */
export function pooledContainerOptions(spec: SandboxSpec, runUid: number): Docker.ContainerCreateOptions {
  const options = containerOptions(spec, runUid);
  return { ...options, Cmd: ["python3", "-I", "-u", "-c", WARM_LAUNCHER, inContainerLimitSeconds(spec), String(COLLECT_WAIT_SECONDS)] };
}

/** The in-container time limit: the runner's own, plus a grace period (the runner kills first). */
function inContainerLimitSeconds(spec: SandboxSpec): string {
  return String((spec.timeoutMs + IN_CONTAINER_GRACE_MS) / 1000);
}

/** What runInDocker needs from a warm pool (container-pool.ts implements it). */
export type WarmContainerSource = {
  readonly docker: Docker;
  /** A started container for exactly this spec, never used before, or null (then the run goes cold). */
  take(spec: SandboxSpec): ReadyContainer | null;
  /** A container it handed out was dead before its code started; the run went cold. */
  reportStale(ready: ReadyContainer): void;
};

let warmPool: WarmContainerSource | null = null;

/** The pool runs take containers from (worker start-up sets it when SANDBOX_POOL_SIZE > 0). */
export function setWarmPool(pool: WarmContainerSource | null): void {
  warmPool = pool;
}

export type DockerRunOptions = RunOptions & {
  docker?: Docker;
  /** Where to take a warm container from; default the one set by setWarmPool, null for none. */
  pool?: WarmContainerSource | null;
  /**
   * Called with the started container before its program is written (the code has not started;
   * its time limit has not begun): the place to hand the container anything it needs first.
   */
  beforeCode?: (ready: ReadyContainer) => void | Promise<void>;
  /** Called once the code runs (tests inspect the container's applied configuration here). */
  onContainer?: (container: Docker.Container) => void | Promise<void>;
  /**
   * When the run is over: "end-marker" (default) on the wrapper's end line on stdout and stderr;
   * "container-exit" on the daemon reporting the container's exit, as before the end line was
   * used, for the benchmark's side-by-side comparison only (files left in /mnt/out are refused).
   */
  completion?: "end-marker" | "container-exit";
};

export async function runInDocker(spec: SandboxSpec, code: string, opts: DockerRunOptions = {}): Promise<SandboxRunResult> {
  if (spec.isolation === "namespace") throw new Error(`runInDocker got a ${spec.isolation} spec`);
  const docker = opts.docker ?? dockerClient();
  const release = await sandboxLimiter().acquire(opts.signal);
  try {
    return await runOnce(docker, spec, code, opts);
  } finally {
    release();
  }
}

async function runOnce(docker: Docker, spec: SandboxSpec, code: string, opts: DockerRunOptions): Promise<SandboxRunResult> {
  const started = performance.now();
  const pool = opts.pool === undefined ? warmPool : opts.pool;
  const warm = pool && pool.docker === docker ? pool.take(spec) : null;
  if (pool && warm) {
    const result = await runIn(docker, warm, spec, code, opts, started);
    if (result !== STALE) return result;
    // Its code never started (the container or its daemon was gone): a fresh container runs it.
    pool.reportStale(warm);
  }
  if (opts.signal?.aborted) return abortedResult(spec, started);
  const result = await runIn(docker, await startCold(docker, spec), spec, code, opts, started);
  if (result === STALE) throw new Error("a cold container cannot be stale");
  return result;
}

async function startCold(docker: Docker, spec: SandboxSpec): Promise<ReadyContainer> {
  const runUid = leaseRunUid();
  try {
    return await startContainer(docker, containerOptions(spec, runUid.uid), { uid: runUid.uid, releaseUid: runUid.release, pooled: false });
  } catch (err) {
    // Say which it is when the daemon is gone or the approved image is missing.
    await assertDockerReady(spec.image, docker);
    throw new SandboxUnavailableError(`could not start a sandbox container: ${errorMessage(err)}`, { cause: err });
  }
}

const STALE = Symbol("stale");

/** What a run's kill and its end line have set so far; read when the run has ended. */
type RunState = { timedOut: boolean; aborted: boolean; endLineSeen: boolean };

/** Runs the code in a started container; STALE when a pooled container turns out dead before its code started. */
async function runIn(docker: Docker, ready: ReadyContainer, spec: SandboxSpec, code: string, opts: DockerRunOptions, started: number): Promise<SandboxRunResult | typeof STALE> {
  const output = new OutputCollector(spec.outputLimitChars, opts.onOutput);
  const marker = newRunMarker();
  const outEnd = new EndMarkerScanner(marker);
  const errEnd = new EndMarkerScanner(marker);
  ready.setSink((stream, chunk) => output.push(stream, (stream === "stdout" ? outEnd : errEnd).push(chunk)));
  // The wrapper's end line on both streams: the code has exited and all it wrote is in.
  const codeEnded = Promise.all([outEnd.ended, errEnd.ended]).then(([end]) => end);
  const state: RunState = { timedOut: false, aborted: false, endLineSeen: false };
  void outEnd.ended.then(() => (state.endLineSeen = true));
  const kill = (reason: "timeout" | "abort") => {
    if (reason === "timeout") state.timedOut = true;
    else state.aborted = true;
    ready.container.kill({ signal: "SIGKILL" }).catch(() => {
      // Already gone; it is removed below either way.
    });
  };
  let timer: NodeJS.Timeout | null = null;
  const onAbort = () => kill("abort");
  try {
    if (opts.signal?.aborted) return abortedResult(spec, started);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.beforeCode) await opts.beforeCode(ready);
    if (opts.datasets?.length) {
      try {
        await putDatasets(docker, ready.container, opts.datasets);
      } catch (err) {
        if (ready.pooled) return STALE; // a dead pooled container: the run goes cold
        throw new SandboxUnavailableError(`could not hand the data sets to the sandbox: ${errorMessage(err)}`, { cause: err });
      }
    }
    if (state.aborted) return abortedResult(spec, started);
    timer = setTimeout(() => kill("timeout"), spec.timeoutMs);
    ready.sendCode(`${marker}\n${code}`);
    if (opts.onContainer) await opts.onContainer(ready.container);

    const ended = await awaitRunEnd(docker, ready, spec, opts, codeEnded, state);
    if (ended === STALE) return STALE;
    const { status, diedBeforeEndLine, artifacts } = ended;
    clearTimeout(timer);
    if (!ready.codeStarted()) return STALE;
    for (const [stream, scanner] of [["stdout", outEnd], ["stderr", errEnd]] as const) {
      const heldBack = scanner.flush();
      if (heldBack.length) output.push(stream, heldBack);
    }
    output.end();

    // A clean exit needs no inspect; anything else may be the OOM killer's doing.
    const oomKilled = status !== 0 && (await wasOomKilled(ready, spec, status === 137 && !state.timedOut && !state.aborted, diedBeforeEndLine));
    const killed = state.timedOut || state.aborted || oomKilled;
    const result = output.result({ isolation: spec.isolation, exitCode: killed ? null : status, timedOut: state.timedOut, oomKilled, aborted: state.aborted, startedAt: started });
    return { ...result, artifacts: killed ? { files: [] } : artifacts };
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    // Removed (force: killed first) after the result is reported, not before: its main process
    // exits right after the end line unless files wait, and every process of the container goes with
    // it (PID namespace); it is never handed out again. settleSandboxRemovals waits for the removal.
    void ready.dispose();
  }
}

/**
 * Waits for the code's end line or the container's exit: the exit status, whether the container
 * died before the end line, and the files left in /mnt/out; STALE when the container was lost
 * before its code started.
 */
async function awaitRunEnd(
  docker: Docker,
  ready: ReadyContainer,
  spec: SandboxSpec,
  opts: DockerRunOptions,
  codeEnded: Promise<RunEnd>,
  state: RunState,
): Promise<{ status: number; diedBeforeEndLine: boolean; artifacts: CollectedArtifacts } | typeof STALE> {
  let status: number;
  let diedBeforeEndLine = false;
  let artifacts: CollectedArtifacts = { files: [] };
  try {
    const ended = await Promise.race([ready.exited.then(() => null), codeEnded]);
    if (ended !== null) {
      if (ended.files && !state.timedOut && !state.aborted) {
        // Files left in /mnt/out: read them while the container waits for it.
        artifacts = await collectArtifactsFromContainer(docker, ready.container, `${ready.uid}:${parseUser(spec.user).gid}`, opts.artifactCaps ?? artifactCaps())
          .catch((err: unknown) => ({ refused: `The files in /mnt/out could not be read (${errorMessage(err)}), so none were kept.` }));
      }
      if (opts.completion === "container-exit") {
        if (ended.files) await ready.container.kill({ signal: "SIGTERM" }).catch(() => {});
        status = (await ready.exited).StatusCode;
        await Promise.race([ready.streamClosed, delay(2000)]);
      } else {
        // Done without waiting for the daemon to notice the container's exit (tens to hundreds of
        // ms later): the container is removed below, after the result is reported.
        status = ended.status;
      }
    } else {
      // Killed (time limit, abort, OOM) or the daemon lost: the exit status is the daemon's.
      status = (await ready.exited).StatusCode;
      // The exit may be reported before the last bytes arrive through the attach stream.
      await Promise.race([ready.streamClosed, delay(2000)]);
      diedBeforeEndLine = !state.endLineSeen;
    }
  } catch (err) {
    if (!ready.codeStarted()) return STALE;
    throw new SandboxUnavailableError(`lost the Docker daemon during the run: ${errorMessage(err)}`, { cause: err });
  }
  return { status, diedBeforeEndLine, artifacts };
}

function abortedResult(spec: SandboxSpec, started: number): SandboxRunResult {
  return {
    isolation: spec.isolation,
    exitCode: null,
    timedOut: false,
    oomKilled: false,
    aborted: true,
    truncated: false,
    stdout: "",
    stderr: "",
    durationMs: Math.round(performance.now() - started),
    firstOutputMs: null,
  };
}

/**
 * Whether the kernel's OOM killer ended the run, asked in turn: the count in the container's memory
 * cgroup (read on the daemon's own host while the container still exists: under runc it does, the
 * OOM killer hits the code and the wrapper reports the SIGKILL), Docker's `oom` event and its
 * OOMKilled flag. Under gVisor the host's OOM killer kills gVisor's kernel, the largest process in
 * the cgroup, so the whole sandbox dies at once and its cgroup with it, and runsc may leave Docker's
 * flag unset: a gVisor sandbox that died of SIGKILL before its wrapper's end line, which no code
 * inside it can send (its processes live in gVisor's kernel) and the runner did not send, was killed
 * by the OOM killer. The daemon may record the OOM just after the exit: an unexplained SIGKILL (137)
 * is looked at again for a moment before it is called something else.
 */
async function wasOomKilled(ready: ReadyContainer, spec: SandboxSpec, unexplainedKill: boolean, diedBeforeEndLine: boolean): Promise<boolean> {
  if (unexplainedKill && diedBeforeEndLine && spec.isolation === "gvisor") return true;
  for (let attempt = 0; ; attempt++) {
    if (ready.oomReported()) return true;
    let info: Docker.ContainerInspectInfo;
    try {
      info = await ready.container.inspect();
    } catch {
      return ready.oomReported(); // gone already: only the event can say
    }
    if (info.State.OOMKilled === true) return true;
    if (info.State.Running && (oomKillsOfProcess(info.State.Pid, info.Id) ?? 0) > 0) return true;
    if (!unexplainedKill || attempt === 10) return false;
    await delay(100);
  }
}

/**
 * Removes the sandbox containers nobody supervises any more: those whose owner process on this host
 * is gone (any age: a console or worker that crashed mid-run), and any older than `olderThanMs`
 * (leftovers whose owner cannot be checked from here: another host sharing the daemon, or a
 * container from before owners were labelled). Containers of live processes are left alone.
 */
export async function sweepSandboxContainers(olderThanMs = 15 * 60_000, docker: Docker = dockerClient()): Promise<number> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } });
  const cutoff = Date.now() / 1000 - olderThanMs / 1000;
  let removed = 0;
  for (const info of containers) {
    if (!ownerIsGone(info.Labels?.[SANDBOX_OWNER_LABEL]) && info.Created > cutoff) continue;
    await removeContainer(docker.getContainer(info.Id));
    removed++;
  }
  return removed;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
