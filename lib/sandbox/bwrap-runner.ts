// The namespace sandbox (bubblewrap) for hosts without Docker. Same result shape and limits as
// the container runner, and the same root filesystem: the sandbox image's rootfs (rootfs.ts),
// read-only as /, so the code gets the interpreter and libraries the reviewer approved. No network,
// tmpfs /tmp, nobody, memory in a cgroup of its own where one can be made (memory-cgroup.ts),
// other limits via prlimit, whole sandbox killed at the deadline.
import { execFile, spawn, type SpawnOptionsWithStdioTuple, type StdioPipe } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxLimiter } from "./concurrency";
import { createRunCgroup, memoryEnforcement, type RunCgroup } from "./memory-cgroup";
import { leaseRunUid } from "./run-uid";
import { OutputCollector } from "./output";
import { dockerClient, sandboxImageTag } from "./docker-runner";
import { ensureBwrapRootfs, rootfsDirOf } from "./rootfs";
import { parseUser, SANDBOX_SHM_BYTES, type SandboxSpec } from "./spec";
import { ARTIFACT_MOUNT, artifactCaps, collectArtifactsFromDir, DATASET_MOUNT } from "./run-files";
import { SandboxUnavailableError, type CollectedArtifacts, type DatasetFile, type RunOptions, type SandboxRunResult } from "./types";

const SANDBOX_ENV: [string, string][] = [
  ["PATH", "/usr/local/bin:/usr/bin:/bin"],
  ["LANG", "C.UTF-8"],
  // Limits, not secrets (see docker-runner): one BLAS thread per run.
  ["OPENBLAS_NUM_THREADS", "1"],
  ["OMP_NUM_THREADS", "1"],
];

/**
 * The namespace spec's image: the sandbox image's rootfs, extracted if it is not yet (from the
 * cached tarball, or exported from Docker); without Docker, the one extracted last.
 */
export async function bwrapImage(): Promise<string> {
  return (await ensureBwrapRootfs({ docker: dockerClient(), image: sandboxImageTag() })).image;
}

/** The sandbox image's python, inside the rootfs. */
const SANDBOX_PYTHON = "/usr/bin/python3";

function which(binary: string): string | null {
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"]) {
    const candidate = path.join(/*turbopackIgnore: true*/ dir, binary);
    if (existsSync(/*turbopackIgnore: true*/ candidate)) return candidate;
  }
  return null;
}

type BwrapTools = { bwrap: string; prlimit: string; dash: string | null; rootfs: string };

/** Throws SandboxUnavailableError unless bwrap, prlimit and the spec's rootfs are usable. */
export function assertBwrapReady(spec: Pick<SandboxSpec, "image">): BwrapTools {
  const bwrap = which("bwrap");
  if (!bwrap) throw new SandboxUnavailableError("bubblewrap (bwrap) is not installed");
  const prlimit = which("prlimit");
  if (!prlimit) throw new SandboxUnavailableError("prlimit (util-linux) is not installed");
  // dash by name (not /bin/sh, which may be bash: its ulimit takes other units and letters).
  return { bwrap, prlimit, dash: which("dash"), rootfs: rootfsDirOf(spec.image) };
}

/** Host folders of one run: its data sets (read-only inside) and its /mnt/out. */
export type RunMounts = { data: string; out: string };

/**
 * bwrap arguments: the sandbox image's rootfs read-only as /, nothing of the host's files; with
 * `mounts`, the run's data sets read-only at /mnt/data and its output folder at /mnt/out (on a
 * tiny read-only tmpfs over the image's /mnt, which holds the two mount points).
 */
export function bwrapArgs(spec: SandboxSpec, rootfs: string, mounts?: RunMounts): string[] {
  const { uid, gid } = parseUser(spec.user);
  const args = [
    "--unshare-all", // user, ipc, pid, net, uts, cgroup namespaces: no network at all
    "--unshare-user", // --unshare-all only tries; insist, and forbid nested user namespaces
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    "--uid", String(uid),
    "--gid", String(gid),
    "--hostname", "sandbox",
    "--ro-bind", rootfs, "/",
    "--proc", "/proc",
    "--dev", "/dev",
    // bwrap's /dev is a tmpfs with no size limit: read-only, with a tiny /dev/shm of its own.
    "--remount-ro", "/dev",
    "--size", String(SANDBOX_SHM_BYTES), "--tmpfs", "/dev/shm",
    "--size", String(spec.tmpfsBytes), "--tmpfs", "/tmp",
    ...(mounts
      ? ["--size", "65536", "--tmpfs", "/mnt", "--ro-bind", mounts.data, DATASET_MOUNT, "--bind", mounts.out, ARTIFACT_MOUNT, "--remount-ro", "/mnt"]
      : []),
    "--remount-ro", "/",
    "--chdir", "/tmp",
  ];
  for (const [key, value] of SANDBOX_ENV) args.push("--setenv", key, value);
  // -I: isolated mode (no PYTHON* variables, no user site); -u: unbuffered; -: code from stdin.
  args.push("--", SANDBOX_PYTHON, "-I", "-u", "-");
  return args;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * prlimit arguments: memory (address space, only when no cgroup holds it), processes, file size,
 * open files, no core dumps. RLIMIT_NPROC counts every task of the real uid host-wide, so when the
 * runner is not root (and the sandbox shares the app's uid) the user's existing tasks are added.
 */
export function prlimitArgs(spec: SandboxSpec, existingTasks = 0, memory: "cgroup" | "rlimit-as" = "rlimit-as"): string[] {
  return [
    ...(memory === "rlimit-as" ? [`--as=${spec.memoryBytes}`] : []),
    `--nproc=${spec.pidsLimit + existingTasks}`,
    `--fsize=${spec.fileSizeBytes}`,
    `--nofile=${spec.openFiles}`,
    "--core=0",
    // CPU seconds as a backstop to the wall-clock kill.
    `--cpu=${Math.ceil(spec.timeoutMs / 1000) + 1}`,
    "--",
  ];
}

/**
 * The same limits as prlimitArgs, as dash's `ulimit` builtins in the shell that starts bwrap (the
 * shell that joins the run's cgroup, or one in prlimit's place): one exec fewer per run. Dash sets
 * soft and hard limits alike and counts file size in 512-byte blocks and address space in KiB;
 * null when a limit is not a whole number of its unit (then prlimit sets it exactly).
 */
export function dashUlimits(spec: SandboxSpec, existingTasks = 0, memory: "cgroup" | "rlimit-as" = "rlimit-as"): string | null {
  if (spec.fileSizeBytes % 512 !== 0 || (memory === "rlimit-as" && spec.memoryBytes % 1024 !== 0)) return null;
  return [
    ...(memory === "rlimit-as" ? [`ulimit -v ${spec.memoryBytes / 1024}`] : []),
    `ulimit -p ${spec.pidsLimit + existingTasks}`,
    `ulimit -f ${spec.fileSizeBytes / 512}`,
    `ulimit -n ${spec.openFiles}`,
    "ulimit -c 0",
    `ulimit -t ${Math.ceil(spec.timeoutMs / 1000) + 1}`,
  ].join(" && ");
}

export type BwrapRunOptions = RunOptions & {
  /**
   * How the rlimits are set: "shell" (default where dash is installed and the limits fit its
   * units) or "prlimit" (an exec of prlimit, as before; for the benchmark's side-by-side comparison).
   */
  limitsVia?: "shell" | "prlimit";
};

export async function runInBwrap(spec: SandboxSpec, code: string, opts: BwrapRunOptions = {}): Promise<SandboxRunResult> {
  if (spec.isolation !== "namespace") throw new Error(`runInBwrap got a ${spec.isolation} spec`);
  const tools = assertBwrapReady(spec);
  const release = await sandboxLimiter().acquire(opts.signal);
  try {
    return await runOnce(spec, code, opts, tools);
  } finally {
    release();
  }
}

function runOnce(spec: SandboxSpec, code: string, opts: BwrapRunOptions, tools: BwrapTools): Promise<SandboxRunResult> {
  const started = performance.now();
  const output = new OutputCollector(spec.outputLimitChars, opts.onOutput);
  const aborted = opts.signal?.aborted === true;
  const { gid } = parseUser(spec.user);
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

  return new Promise<SandboxRunResult>((resolve, reject) => {
    if (aborted) {
      resolve(emptyResult(started, { aborted: true }));
      return;
    }
    const existingTasks = asRoot ? 0 : countTasksOfUid(process.getuid?.() ?? -1);
    let run: RunResources;
    try {
      run = acquireRunResources(spec, opts, asRoot, gid);
    } catch (err) {
      reject(err);
      return;
    }
    const child = spawnRun(spec, opts, tools, run, existingTasks);
    superviseRun({ spec, code, opts, run, output, started }, child, resolve, reject);
  });
}

/** What one run holds on the host until it ends: its uid (when root), its folder, its memory cgroup. */
type RunResources = { runUid: ReturnType<typeof leaseRunUid> | null; gid: number; folder: RunFolder; cgroup: RunCgroup | null };

/** Leases what the run holds; throws SandboxUnavailableError with nothing held when one cannot be had. */
function acquireRunResources(spec: SandboxSpec, opts: BwrapRunOptions, asRoot: boolean, gid: number): RunResources {
  // Inside the namespace the code is the spec's user; on the host, when we can choose, the run
  // has a uid of its own: RLIMIT_NPROC does not bind root and counts per uid host-wide, and an
  // escape from the namespaces lands as an unprivileged uid no other run shares.
  const runUid = asRoot ? leaseRunUid() : null;
  let folder: RunFolder;
  try {
    folder = prepareRunFolder(opts.datasets ?? [], runUid?.uid ?? null, gid);
  } catch (err) {
    runUid?.release();
    throw new SandboxUnavailableError(`could not prepare the run's /mnt/data and /mnt/out: ${(err as Error).message}`, { cause: err });
  }
  const enforcement = memoryEnforcement();
  let cgroup: RunCgroup | null = null;
  if (enforcement.kind === "cgroup") {
    try {
      cgroup = createRunCgroup(enforcement, `countersign-run-${randomUUID()}`, spec.memoryBytes, runUid?.uid ?? null);
    } catch (err) {
      runUid?.release();
      folder.remove();
      throw new SandboxUnavailableError(`could not create the run's memory cgroup: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  return { runUid, gid, folder, cgroup };
}

/** Starts bwrap under the run's limits, as the run's uid when it has one. */
function spawnRun(spec: SandboxSpec, opts: BwrapRunOptions, tools: BwrapTools, run: RunResources, existingTasks: number) {
  const { runUid, cgroup } = run;
  const spawnOptions: SpawnOptionsWithStdioTuple<StdioPipe, StdioPipe, StdioPipe> = {
    env: {} as NodeJS.ProcessEnv, // nothing from the host's environment (the cast: a project-wide ProcessEnv augmentation requires NODE_ENV)
    stdio: ["pipe", "pipe", "pipe"],
    detached: true, // own process group, so the deadline kills all of it
  };
  if (runUid) {
    spawnOptions.uid = runUid.uid;
    spawnOptions.gid = run.gid;
  }
  const memory = cgroup ? "cgroup" : "rlimit-as";
  const bwrap = [tools.bwrap, ...bwrapArgs(spec, tools.rootfs, run.folder)];
  const ulimits = tools.dash && opts.limitsVia !== "prlimit" ? dashUlimits(spec, existingTasks, memory) : null;
  // The first process joins the run's cgroup itself, before anything of the code exists, and
  // sets the rlimits bwrap and the code inherit (dash's ulimit, else prlimit).
  const join = cgroup ? 'echo $$ > "$0" && ' : "";
  return ulimits !== null && tools.dash
    ? spawn(tools.dash, ["-c", `${join}${ulimits} && exec "$@"`, cgroup?.procsFile ?? "sh", ...bwrap], spawnOptions)
    : cgroup
      ? spawn("/bin/sh", ["-c", `${join}exec "$@"`, cgroup.procsFile, tools.prlimit, ...prlimitArgs(spec, existingTasks, memory), ...bwrap], spawnOptions)
      : spawn(tools.prlimit, [...prlimitArgs(spec, existingTasks, memory), ...bwrap], spawnOptions);
}

type RunningRun = { spec: SandboxSpec; code: string; opts: BwrapRunOptions; run: RunResources; output: OutputCollector; started: number };

/**
 * Feeds the code to the started run, kills its whole group at the deadline or on abort, and
 * settles once it ended: the result with its artifacts, then everything the run held released.
 */
function superviseRun(
  { spec, code, opts, run, output, started }: RunningRun,
  child: ReturnType<typeof spawnRun>,
  resolve: (result: SandboxRunResult) => void,
  reject: (error: unknown) => void,
): void {
  const { runUid, cgroup, folder } = run;
  // The end of stderr, kept apart from the capped copy, to recognise a MemoryError.
  let stderrTail = "";
  let timedOut = false;
  let aborted = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, spec.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  child.stdout.on("data", (chunk: Buffer) => output.push("stdout", chunk));
  child.stderr.on("data", (chunk: Buffer) => {
    output.push("stderr", chunk);
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2048);
  });
  child.stdin.on("error", () => {
    // EPIPE when the code exits without reading all of stdin.
  });
  child.stdin.end(code);

  child.on("error", (err) => {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    killGroup();
    runUid?.release();
    cgroup?.remove();
    folder.remove();
    reject(new SandboxUnavailableError(`could not start bwrap: ${err.message}`, { cause: err }));
  });

  // "close" fires after the process exited and its stdio streams ended.
  child.on("close", (code, signal) => {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    killGroup(); // anything the code left behind in the group
    runUid?.release(); // the pid namespace ended with bwrap (--die-with-parent)
    output.end();
    const oomKilled = !timedOut && !aborted && code !== 0 && (cgroup?.oomKilled() === true || /(?:^|\n)MemoryError\b[^\n]*\n?$/.test(stderrTail));
    const killed = timedOut || aborted || signal !== null;
    const artifacts = artifactsOf(folder, opts);
    const result = output.result({ isolation: "namespace", exitCode: killed ? null : code, timedOut, oomKilled, aborted, startedAt: started });
    resolve({ ...result, artifacts });
    // After the result: nothing of the run is left to read or to limit.
    cgroup?.remove();
    folder.remove();
  });
}

/** The files the run left in /mnt/out, or why none were kept. */
function artifactsOf(folder: RunFolder, opts: BwrapRunOptions): CollectedArtifacts {
  try {
    return collectArtifactsFromDir(folder.out, opts.artifactCaps ?? artifactCaps());
  } catch (err) {
    return { refused: `The files in ${ARTIFACT_MOUNT} could not be read (${(err as Error).message}), so none were kept.` };
  }
}

type RunFolder = RunMounts & { remove: () => void };

/**
 * A private host folder for one run: `data/` holds the data sets (root's, read-only, bound
 * read-only) and `out/` is the run's /mnt/out, owned by the run's uid. Files written there are
 * capped one by one by RLIMIT_FSIZE; the count and total are checked when collected.
 */
function prepareRunFolder(datasets: DatasetFile[], runUid: number | null, gid: number): RunFolder {
  const root = mkdtempSync(path.join(os.tmpdir(), "countersign-run-"));
  const remove = () => {
    // data/ is read-only even for its owner; an unprivileged console must open it to delete it.
    if (existsSync(path.join(root, "data"))) chmodSync(path.join(root, "data"), 0o755);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    chmodSync(root, 0o711); // bwrap runs as the run's uid: it may pass through, not list
    const data = path.join(root, "data");
    const out = path.join(root, "out");
    mkdirSync(data);
    for (const file of datasets) writeFileSync(path.join(data, file.name), file.bytes, { mode: 0o444, flag: "wx" });
    chmodSync(data, 0o555);
    mkdirSync(out, { mode: 0o700 });
    if (runUid !== null) chownSync(out, runUid, gid);
    return { data, out, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

function countTasksOfUid(uid: number): number {
  let tasks = 0;
  for (const pid of safeReaddir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (statSync(`/proc/${pid}`).uid === uid) tasks += safeReaddir(`/proc/${pid}/task`).length;
    } catch {
      // The process exited while we counted.
    }
  }
  return tasks;
}

function emptyResult(started: number, flags: { aborted: boolean }): SandboxRunResult {
  return {
    isolation: "namespace",
    exitCode: null,
    timedOut: false,
    oomKilled: false,
    aborted: flags.aborted,
    truncated: false,
    stdout: "",
    stderr: "",
    durationMs: Math.round(performance.now() - started),
    firstOutputMs: null,
  };
}

/** Runs `print(...)` in the sandbox to prove it works here (user namespaces allowed, etc.). */
export function probeBwrap(spec: SandboxSpec): Promise<{ ok: boolean; reason: string }> {
  return runInBwrap({ ...spec, timeoutMs: Math.min(spec.timeoutMs, 5000) }, "print('countersign-probe')\n").then(
    (r) =>
      r.exitCode === 0 && r.stdout.trim() === "countersign-probe"
        ? { ok: true, reason: "bubblewrap probe ran" }
        : { ok: false, reason: `bubblewrap probe failed (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 300)}` },
    (err: unknown) => ({ ok: false, reason: err instanceof Error ? err.message : String(err) }),
  );
}

// Kept for callers that want the bwrap version in diagnostics.
export function bwrapVersion(): Promise<string | null> {
  const bwrap = which("bwrap");
  if (!bwrap) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile(bwrap, ["--version"], { timeout: 2000 }, (err, stdout) => resolve(err ? null : stdout.trim()));
  });
}
