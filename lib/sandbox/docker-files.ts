// Files in and out of a Docker sandbox run (the container side of run-files.ts): data sets written
// into the container's /mnt/data tmpfs by an exec as root before the code starts (then read-only),
// and /mnt/out read back by an exec as the run's uid after the code ended, while the container's
// first process waits for it. tmpfs mounts go with the container, so both happen while it is alive.
import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { PassThrough } from "node:stream";
import { ARTIFACT_MOUNT, DATASET_MOUNT, datasetMaxBytes, datasetsTar, parseArtifactsTar, tarStreamLimit, tooManyBytes } from "./run-files";
import type { ArtifactCaps, CollectedArtifacts, DatasetFile } from "./types";

/** Slack on each files tmpfs for tmpfs's page-sized blocks (one page per file at most). */
const TMPFS_SLACK_BYTES = 64 * 4096;

/** The run's /mnt/data and /mnt/out as tmpfs mounts, sized by the caps (not by the host's disk). */
export function filesTmpfs(caps: ArtifactCaps, datasetBytes: number = datasetMaxBytes()): Record<string, string> {
  return {
    // root's until the data sets are in, then 0555 with 0444 files: the run's uid only reads.
    [DATASET_MOUNT]: `rw,noexec,nosuid,nodev,size=${datasetBytes + TMPFS_SLACK_BYTES},mode=0755`,
    [ARTIFACT_MOUNT]: `rw,noexec,nosuid,nodev,size=${caps.maxTotalBytes + TMPFS_SLACK_BYTES},mode=1777`,
  };
}

/**
 * The container's command: read the run's marker from the first line of stdin (the rest is the
 * code, read by python), run the code under its in-container time limit ($1), then write the end
 * line — the marker, the code's exit status and whether it left files in /mnt/out — to stdout and
 * to stderr. The runner ends the run on the two end lines (each stream is ordered, so every byte
 * the code wrote to either is in by then) instead of waiting for the daemon to report the
 * container's exit. Without files the script then exits with the code's status; with files it waits
 * up to $2 seconds to be collected, and SIGTERM ends it with the code's status. The marker is random
 * per run and never reaches the code, so output the code prints cannot pass for it; a process the
 * code left behind that found it could only end its own run early, with a status of its choosing.
 * The files check is a glob in the shell (no fork): any entry, dot files included.
 */
export const FILES_RUN_SCRIPT = [
  "read -r marker",
  'timeout -s KILL "$1" python3 -I -u -',
  "s=$?",
  "f=0",
  `for p in ${ARTIFACT_MOUNT}/* ${ARTIFACT_MOUNT}/.[!.]* ${ARTIFACT_MOUNT}/..?*; do { [ -e "$p" ] || [ -L "$p" ]; } && f=1; done`,
  "printf '\\036%s %s %s\\n' \"$marker\" \"$s\" \"$f\"",
  "printf '\\036%s %s %s\\n' \"$marker\" \"$s\" \"$f\" >&2",
  '[ "$f" = 0 ] && exit $s',
  "trap 'exit $s' TERM",
  'sleep "$2" & wait',
  "exit $s",
].join("\n");

/** How long a container whose code left files waits to be collected before it ends by itself. */
export const COLLECT_WAIT_SECONDS = 30;

export function newRunMarker(): string {
  return randomBytes(12).toString("hex");
}

/** The wrapper's end line: the code's exit status and whether it left files in /mnt/out. */
export type RunEnd = { status: number; files: boolean };

/**
 * Takes the wrapper's end line out of one output stream (stdout or stderr): everything before it is
 * the code's output; once seen, `ended` resolves with what the line says and later bytes (from
 * processes the code left behind) are dropped.
 */
export class EndMarkerScanner {
  private readonly marker: Buffer;
  private pending: Buffer = Buffer.alloc(0);
  private done = false;
  readonly ended: Promise<RunEnd>;
  private resolve!: (end: RunEnd) => void;

  constructor(marker: string) {
    this.marker = Buffer.from(`\x1e${marker} `, "utf8");
    this.ended = new Promise((resolve) => (this.resolve = resolve));
  }

  /** The bytes of `chunk` that are the code's output (some may be held back until the next chunk). */
  push(chunk: Buffer): Buffer {
    if (this.done) return Buffer.alloc(0);
    const data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const at = data.indexOf(this.marker);
    if (at >= 0) {
      const rest = data.subarray(at + this.marker.length);
      const newline = rest.indexOf(0x0a);
      if (newline < 0) {
        this.pending = data.subarray(at);
        return data.subarray(0, at);
      }
      this.done = true;
      this.pending = Buffer.alloc(0);
      const [status, files] = rest.subarray(0, newline).toString("ascii").split(" ");
      this.resolve({ status: Number.parseInt(status, 10), files: files === "1" });
      return data.subarray(0, at);
    }
    // Hold back a tail that could be the start of the marker.
    let keep = Math.min(this.marker.length - 1, data.length);
    while (keep > 0 && !data.subarray(data.length - keep).equals(this.marker.subarray(0, keep))) keep--;
    this.pending = data.subarray(data.length - keep);
    return data.subarray(0, data.length - keep);
  }

  /** What is still held back, once the output has ended without the marker. */
  flush(): Buffer {
    const rest = this.done ? Buffer.alloc(0) : this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }
}

/**
 * Writes the data sets into the container's /mnt/data as root (the container's only root process,
 * with no capabilities: it may write only what it owns), then makes them read-only.
 */
export async function putDatasets(docker: Docker, container: Docker.Container, datasets: DatasetFile[]): Promise<void> {
  const exec = await container.exec({
    Cmd: ["sh", "-c", `tar -x --no-same-owner -f - -C ${DATASET_MOUNT} && chmod 0444 ${DATASET_MOUNT}/* && chmod 0555 ${DATASET_MOUNT}`],
    User: "0:0",
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream;
  const errors: Buffer[] = [];
  const sink = new PassThrough();
  sink.on("data", (chunk: Buffer) => errors.push(chunk));
  docker.modem.demuxStream(stream, sink, sink);
  const ended = streamEnd(stream);
  stream.end(datasetsTar(datasets));
  await ended;
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) {
    throw new Error(`writing the data sets into ${DATASET_MOUNT} failed (exit ${ExitCode}): ${Buffer.concat(errors).toString("utf8").slice(0, 300)}`);
  }
}

/**
 * Reads /mnt/out as the run's uid (`tar -C /mnt/out -cf - .`), within the caps: an archive larger
 * than the caps allow is cut off and refused, a file the code made unreadable refuses the set.
 */
export async function collectArtifactsFromContainer(docker: Docker, container: Docker.Container, user: string, caps: ArtifactCaps): Promise<CollectedArtifacts> {
  const exec = await container.exec({ Cmd: ["tar", "-C", ARTIFACT_MOUNT, "-cf", "-", "."], User: user, AttachStdout: true, AttachStderr: true });
  const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadWriteStream;
  const limit = tarStreamLimit(caps);
  const parts: Buffer[] = [];
  let size = 0;
  let over = false;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const errors: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) {
      over = true;
      (stream as unknown as { destroy?: () => void }).destroy?.();
      return;
    }
    parts.push(chunk);
  });
  stderr.on("data", (chunk: Buffer) => errors.push(chunk));
  docker.modem.demuxStream(stream, stdout, stderr);
  await streamEnd(stream);
  if (over) return { refused: tooManyBytes(caps) };
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) {
    const reason = Buffer.concat(errors).toString("utf8").trim().split("\n")[0]?.slice(0, 200) ?? "";
    return { refused: `The files in ${ARTIFACT_MOUNT} could not be read (${reason || `tar exit ${ExitCode}`}), so none were kept.` };
  }
  return parseArtifactsTar(Buffer.concat(parts), caps);
}

function streamEnd(stream: NodeJS.ReadWriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once("end", () => resolve());
    stream.once("close", () => resolve());
    stream.once("error", () => resolve());
  });
}
