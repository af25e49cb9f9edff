// One sandbox container from create to removal, shared by the cold path (docker-runner.ts) and the
// warm pool (container-pool.ts): created, attached, its exit awaited and started, so that what is
// left for a run is writing its program to stdin.
import type Docker from "dockerode";
import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { processOwner, SANDBOX_OWNER_LABEL } from "./container-owner";
import type { OutputStream } from "./types";
import { WARM_READY } from "./warm-interpreter";

/**
 * The byte a pooled container's warm interpreter writes to stdout and to stderr on the go line,
 * before the code gets the program: a pooled run that ends without it never ran its code (the
 * container was dead or its daemon gone when it was handed out), so it is safe to run it again in a
 * fresh container.
 */
export const POOLED_ACK = 0x06;


export type OutputSink = (stream: OutputStream, chunk: Buffer) => void;

/** A started container waiting for its program; serves exactly one run. */
export type ReadyContainer = {
  readonly container: Docker.Container;
  /** Created ahead of need (its main process is the warm interpreter, warm-interpreter.ts) rather than for this run. */
  readonly pooled: boolean;
  readonly uid: number;
  /**
   * The exit status: from the daemon's `die` event when this process watches its events (it comes
   * before the daemon has unmounted the container), else from `wait`; rejects when the connection
   * to the daemon is lost.
   */
  readonly exited: Promise<{ StatusCode: number }>;
  /**
   * Resolves once the container's Python has its libraries imported and waits for the program
   * (WARM_READY): at once for a cold container. Never rejects; it may never resolve.
   */
  readonly warmed: Promise<void>;
  /** Whether the daemon sent an `oom` event for this container (the kernel's OOM killer struck in its cgroup). */
  readonly oomReported: () => boolean;
  /** Settles when the attach stream ends. */
  readonly streamClosed: Promise<void>;
  /** Whether the code has started: always for a cold container, after POOLED_ACK for a pooled one. */
  readonly codeStarted: () => boolean;
  /** Where stdout/stderr go from now on (a pooled container's output before each stream's POOLED_ACK is dropped). */
  setSink(sink: OutputSink): void;
  /** Writes the program and closes stdin: the code starts. Called once. */
  sendCode(code: string): void;
  /**
   * Removes the container (tracked by settleSandboxRemovals) and frees its uid; false when the
   * daemon could not be reached to remove it. Idempotent.
   */
  dispose(): Promise<boolean>;
};

type ContainerRun = { uid: number; releaseUid: () => void; pooled: boolean };

/**
 * Creates, attaches and starts a container with `options`. `releaseUid` is called once the container
 * is removed (its processes are gone with it). On failure nothing is left behind.
 */
export async function startContainer(
  docker: Docker,
  options: Docker.ContainerCreateOptions,
  run: ContainerRun,
): Promise<ReadyContainer> {
  let container: Docker.Container | null = null;
  let attached: NodeJS.ReadWriteStream | null = null;
  try {
    container = await docker.createContainer(options);
    const created = container;
    // Attach before start so no early output is lost and stdin is connected when the process reads it.
    const stream = (await created.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream;
    attached = stream;
    stream.on("error", () => {}); // a lost connection shows as `exited` rejecting and `streamClosed`
    const output = demuxOutput(docker, stream, run.pooled);
    const streamClosed = streamEnded(stream);
    const exit = watchExit(docker, created);
    await created.start();
    if (leftovers.size > 0) void trackRemoval(removeLeftovers()); // the daemon answers again
    return readyContainer(created, stream, run, output, exit, streamClosed);
  } catch (err) {
    if (attached) destroyStream(attached);
    if (container) await trackRemoval(removeContainer(container));
    run.releaseUid();
    throw err;
  }
}

type ContainerOutput = Pick<ReadyContainer, "warmed" | "codeStarted" | "setSink">;

/**
 * Splits the attach stream into stdout and stderr for the sink. A pooled container's output before
 * each stream's POOLED_ACK is the warm interpreter's, not the code's: dropped, but for WARM_READY.
 */
function demuxOutput(docker: Docker, stream: NodeJS.ReadWriteStream, pooled: boolean): ContainerOutput {
  let sink: OutputSink | null = null;
  let acked = !pooled;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (chunk: Buffer) => {
    if (!acked) {
      // Nothing but the wrapper writes to stdout before the code runs, so the ack is the first byte.
      acked = true;
      if (chunk[0] === POOLED_ACK) chunk = chunk.subarray(1);
    }
    sink?.("stdout", chunk);
  });
  let warm!: () => void;
  const warmed = pooled ? new Promise<void>((resolve) => (warm = resolve)) : Promise.resolve();
  // stderr is acknowledged on its own (Docker forwards the two streams independently, so the code's
  // first stderr bytes may come before the stdout ack): what comes before its ack is the warm
  // interpreter's start-up, dropped but for WARM_READY.
  let stderrAcked = !pooled;
  stderr.on("data", (chunk: Buffer) => {
    if (!stderrAcked) {
      if (chunk.includes(WARM_READY)) warm();
      const at = chunk.indexOf(POOLED_ACK);
      if (at < 0) return;
      stderrAcked = true;
      chunk = chunk.subarray(at + 1);
    }
    sink?.("stderr", chunk);
  });
  docker.modem.demuxStream(stream, stdout, stderr);
  return {
    warmed,
    codeStarted: () => acked,
    setSink: (next) => {
      sink = next;
    },
  };
}

function streamEnded(stream: NodeJS.ReadWriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}

type ContainerExit = Pick<ReadyContainer, "exited" | "oomReported"> & { forgetOom: () => void };

/** The container's exit: the daemon's `die` event or `wait`, whichever answers first (watchExits). */
function watchExit(docker: Docker, created: Docker.Container): ContainerExit {
  const waited = created.wait({ condition: "next-exit" }) as Promise<{ StatusCode: number }>;
  const watch = watchExits(docker);
  const died = new Promise<{ StatusCode: number }>((resolve) => watch.waiters.set(created.id, (StatusCode) => resolve({ StatusCode })));
  const exited = Promise.race([waited, died]);
  void exited.then(
    () => watch.waiters.delete(created.id),
    () => watch.waiters.delete(created.id), // observed by whoever uses the container; never unhandled
  );
  return {
    exited,
    oomReported: () => watch.ooms.has(created.id),
    forgetOom: () => watch.ooms.delete(created.id),
  };
}

/** The started container as a run sees it: one program in, removed once (dispose). */
function readyContainer(
  created: Docker.Container,
  stream: NodeJS.ReadWriteStream,
  run: ContainerRun,
  output: ContainerOutput,
  exit: ContainerExit,
  streamClosed: Promise<void>,
): ReadyContainer {
  let disposed: Promise<boolean> | null = null;
  let sent = false;
  return {
    container: created,
    pooled: run.pooled,
    uid: run.uid,
    exited: exit.exited,
    warmed: output.warmed,
    streamClosed,
    codeStarted: output.codeStarted,
    oomReported: exit.oomReported,
    setSink: output.setSink,
    sendCode: (code) => {
      if (sent) throw new Error("a sandbox container runs one program");
      sent = true;
      stream.end(run.pooled ? `run\n${code}` : code); // then EOF; code is never written to the image or a mount
    },
    dispose: () => {
      if (!disposed) {
        destroyStream(stream);
        disposed = trackRemoval(removeContainer(created).finally(run.releaseUid));
        // An `oom` event may trail the removal; forget the id once it no longer can.
        void disposed.finally(() => setTimeout(exit.forgetOom, 10_000).unref());
      }
      return disposed;
    },
  };
}

type ExitWatch = { connected: boolean; connecting: boolean; waiters: Map<string, (status: number) => void>; ooms: Set<string> };
const exitWatches = new WeakMap<Docker, ExitWatch>();

/**
 * One `docker events` stream per daemon for the `die` (and `oom`) of this process's sandbox containers: the
 * daemon reports it as soon as the streams are closed, while `wait` answers only after the
 * container's file systems are unmounted (tens to hundreds of ms later on a busy host). Opened on
 * first use and again after it drops (daemon restart); until it is open, `wait` is the answer.
 * Its socket does not keep the process alive.
 */
function watchExits(docker: Docker): ExitWatch {
  let watch = exitWatches.get(docker);
  if (!watch) {
    watch = { connected: false, connecting: false, waiters: new Map(), ooms: new Set() };
    exitWatches.set(docker, watch);
  }
  const current = watch;
  if (current.connected || current.connecting) return current;
  current.connecting = true;
  docker
    .getEvents({ filters: { type: ["container"], event: ["die", "oom"], label: [`${SANDBOX_OWNER_LABEL}=${processOwner()}`] } })
    .then((events) => {
      current.connecting = false;
      current.connected = true;
      (events as unknown as { socket?: Socket }).socket?.unref();
      let pending = "";
      events.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          try {
            const event = JSON.parse(line) as { id?: string; Action?: string; Actor?: { Attributes?: Record<string, string> } };
            if (event.Action === "oom") {
              // It may come just before or after the `die`; the run's result looks once it has ended.
              if (event.id) current.ooms.add(event.id);
              continue;
            }
            const status = Number(event.Actor?.Attributes?.exitCode);
            if (event.id && Number.isInteger(status)) current.waiters.get(event.id)?.(status);
          } catch {
            // not an event line
          }
        }
      });
      const dropped = () => {
        current.connected = false;
      };
      events.once("end", dropped);
      events.once("close", dropped);
      events.once("error", dropped);
    })
    .catch(() => {
      current.connecting = false;
    });
  return current;
}

function destroyStream(stream: NodeJS.ReadWriteStream): void {
  (stream as unknown as { destroy?: () => void }).destroy?.();
}

const removals = new Set<Promise<unknown>>();

function trackRemoval<T>(removal: Promise<T>): Promise<T> {
  removals.add(removal);
  void removal.finally(() => removals.delete(removal));
  return removal;
}

/** Waits for every container removal started so far (runs report before their container is gone). */
export async function settleSandboxRemovals(): Promise<void> {
  while (removals.size > 0) await Promise.allSettled([...removals]);
}

/**
 * Containers whose removal failed because their daemon could not be reached (it was restarting):
 * removed once a container starts again, and by removeLeftovers (the pool's drain).
 */
const leftovers = new Set<Docker.Container>();

/** Retries the removals that failed while the daemon was away; true when none is left. */
export async function removeLeftovers(): Promise<boolean> {
  for (const container of [...leftovers]) {
    leftovers.delete(container);
    await removeContainer(container); // back in the set if the daemon is still away
  }
  return leftovers.size === 0;
}

/**
 * Force-removes a container; true when it is gone (or was already), false when the daemon could
 * not be reached (it is then kept for removeLeftovers; the owner's start-up sweep is the backstop).
 */
export async function removeContainer(container: Docker.Container): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await container.remove({ force: true, v: true });
      return true;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) return true; // already gone
      if (status === 409) {
        // "removal already in progress"
        await delay(100);
        continue;
      }
      if (attempt === 2) {
        if (status === undefined) {
          leftovers.add(container); // no daemon to ask
          return false;
        }
        console.error(`sandbox: could not remove container ${container.id}:`, err);
      }
      await delay(200);
    }
  }
  return false;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
