// Runs Python in a throw-away Docker container (SPEC "Sandbox"). dockerode honours DOCKER_HOST, so
// the daemon may be remote. Every container is used once and force-removed in a `finally`.
import Docker from "dockerode";
import { PassThrough } from "node:stream";
import { sandboxLimiter } from "./concurrency";
import { ownerIsGone, processOwner, SANDBOX_OWNER_LABEL } from "./container-owner";
import { OutputCollector } from "./output";
import { leaseRunUid } from "./run-uid";
import { parseUser, SANDBOX_SHM_BYTES, type SandboxSpec } from "./spec";
import { SandboxUnavailableError, type RunOptions, type SandboxRunResult } from "./types";
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
    Cmd: ["timeout", "-s", "KILL", `${(spec.timeoutMs + IN_CONTAINER_GRACE_MS) / 1000}s`, "python3", "-I", "-u", "-"],
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
      NetworkMode: "none",
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${spec.tmpfsBytes}` },
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Privileged: false,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes, // equal to Memory: no swap on top
      NanoCpus: spec.nanoCpus,
      PidsLimit: spec.pidsLimit,
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

export type DockerRunOptions = RunOptions & {
  docker?: Docker;
  /** Called once the container runs (tests inspect its applied configuration here). */
  onContainer?: (container: Docker.Container) => void | Promise<void>;
};

export async function runInDocker(spec: SandboxSpec, code: string, opts: DockerRunOptions = {}): Promise<SandboxRunResult> {
  if (spec.isolation !== "container") throw new Error(`runInDocker got a ${spec.isolation} spec`);
  // Data sets go in through the container's API once the pool's hand-out point exists; until then
  // code that names them is refused rather than run without its data.
  if (opts.datasets?.length) {
    throw new SandboxUnavailableError("the container sandbox cannot mount data sets yet; run with SANDBOX_MODE=bwrap to use /mnt/data");
  }
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
  const output = new OutputCollector(spec.outputLimitChars, opts.onOutput);
  let container: Docker.Container | null = null;
  let timedOut = false;
  let aborted = false;
  let timer: NodeJS.Timeout | null = null;
  let onAbort: (() => void) | null = null;
  const runUid = leaseRunUid();

  try {
    try {
      container = await docker.createContainer(containerOptions(spec, runUid.uid));
    } catch (err) {
      throw new SandboxUnavailableError(`could not create sandbox container: ${errorMessage(err)}`, { cause: err });
    }
    const running = container;

    // Attach before start so no early output is lost and stdin is connected when python reads it.
    const stream = (await running.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on("data", (chunk: Buffer) => output.push("stdout", chunk));
    stderr.on("data", (chunk: Buffer) => output.push("stderr", chunk));
    docker.modem.demuxStream(stream, stdout, stderr);
    const streamClosed = new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });

    const kill = (reason: "timeout" | "abort") => {
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      running.kill({ signal: "SIGKILL" }).catch(() => {
        // Already gone; the finally block removes it either way.
      });
    };
    timer = setTimeout(() => kill("timeout"), spec.timeoutMs);
    if (opts.signal) {
      onAbort = () => kill("abort");
      if (opts.signal.aborted) aborted = true;
      else opts.signal.addEventListener("abort", onAbort, { once: true });
    }
    if (aborted) throw new AbortedBeforeStart();

    const exited = running.wait({ condition: "next-exit" }) as Promise<{ StatusCode: number }>;
    await running.start();
    stream.end(code); // code on stdin, then EOF; it is never written to the image or a mount
    if (opts.onContainer) await opts.onContainer(running);

    const { StatusCode } = await exited;
    if (timer) clearTimeout(timer);
    // The exit may be reported before the last bytes arrive through the attach stream.
    await Promise.race([streamClosed, delay(2000)]);
    output.end();

    const oomKilled = await wasOomKilled(running, StatusCode === 137 && !timedOut && !aborted);
    const killed = timedOut || aborted || oomKilled;
    return output.result({ isolation: "container", exitCode: killed ? null : StatusCode, timedOut, oomKilled, aborted, startedAt: started });
  } catch (err) {
    if (err instanceof AbortedBeforeStart) {
      return {
        isolation: "container",
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
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
    if (container) await removeContainer(container);
    runUid.release(); // its processes went with the container
  }
}

class AbortedBeforeStart extends Error {}

/**
 * Docker's OOMKilled flag. The OOM killer hits the code under `timeout`, not the container's first
 * process, and the daemon may record the OOM event just after the exit: a SIGKILL (137) we did
 * not send is looked at again for a moment before it is called something else.
 */
async function wasOomKilled(container: Docker.Container, unexplainedKill: boolean): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    if ((await container.inspect()).State.OOMKilled === true) return true;
    if (!unexplainedKill || attempt === 10) return false;
    await delay(100);
  }
}

async function removeContainer(container: Docker.Container): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await container.remove({ force: true, v: true });
      return;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) return; // already gone
      if (status === 409) {
        // "removal already in progress"
        await delay(100);
        continue;
      }
      if (attempt === 2) console.error(`sandbox: could not remove container ${container.id}:`, err);
      await delay(200);
    }
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
