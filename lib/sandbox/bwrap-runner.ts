// The namespace sandbox (bubblewrap) for hosts without Docker. Same result shape and limits as
// the container runner: no network, read-only /usr only, tmpfs /tmp, nobody, rlimits via prlimit,
// whole sandbox killed at the deadline.
import { execFile, spawn, type SpawnOptionsWithStdioTuple, type StdioPipe } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxLimiter } from "./concurrency";
import { leaseRunUid } from "./run-uid";
import { OutputCollector } from "./output";
import { ARTIFACT_MOUNT, artifactCaps, collectArtifactsFromDir, DATASET_MOUNT } from "./run-files";
import { BWRAP_IMAGE_PREFIX, parseUser, SANDBOX_SHM_BYTES, type SandboxSpec } from "./spec";
import { SandboxUnavailableError, type CollectedArtifacts, type DatasetFile, type RunOptions, type SandboxRunResult } from "./types";
import { readEnv } from "@/lib/env";

const SANDBOX_ENV: [string, string][] = [
  ["PATH", "/usr/local/bin:/usr/bin:/bin"],
  ["LANG", "C.UTF-8"],
  // Limits, not secrets (see docker-runner): one BLAS thread per run.
  ["OPENBLAS_NUM_THREADS", "1"],
  ["OMP_NUM_THREADS", "1"],
];

export function bwrapPythonPath(): string {
  return readEnv("SANDBOX_BWRAP_PYTHON") ?? "/usr/bin/python3";
}

export function bwrapImage(pythonPath: string = bwrapPythonPath()): string {
  return BWRAP_IMAGE_PREFIX + pythonPath;
}

function which(binary: string): string | null {
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"]) {
    const candidate = path.join(dir, binary);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Throws SandboxUnavailableError unless bwrap, prlimit and the spec's python are usable. */
export function assertBwrapReady(spec: Pick<SandboxSpec, "image">): { bwrap: string; prlimit: string; python: string } {
  const bwrap = which("bwrap");
  if (!bwrap) throw new SandboxUnavailableError("bubblewrap (bwrap) is not installed");
  const prlimit = which("prlimit");
  if (!prlimit) throw new SandboxUnavailableError("prlimit (util-linux) is not installed");
  if (!spec.image.startsWith(BWRAP_IMAGE_PREFIX)) throw new SandboxUnavailableError(`not a bwrap image: ${spec.image}`);
  const python = spec.image.slice(BWRAP_IMAGE_PREFIX.length);
  if (!existsSync(python)) throw new SandboxUnavailableError(`python ${python} does not exist`);
  // Only /usr is visible inside the sandbox, so the interpreter must live there.
  if (!realpathSync(python).startsWith("/usr/")) {
    throw new SandboxUnavailableError(`python ${python} is not under /usr, which is all the namespace sandbox exposes`);
  }
  return { bwrap, prlimit, python };
}

/** Host folders of one run: its data sets (read-only inside) and its /mnt/out. */
export type RunMounts = { data: string; out: string };

/**
 * bwrap arguments: only /usr (read-only) and the merged-/usr links, nothing from /etc or /home;
 * with `mounts`, the run's data sets read-only at /mnt/data and its output folder at /mnt/out.
 */
export function bwrapArgs(spec: SandboxSpec, python: string, mounts?: RunMounts): string[] {
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
    "--ro-bind", "/usr", "/usr",
  ];
  for (const dir of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    if (!existsSync(dir)) continue;
    let target: string;
    try {
      target = realpathSync(dir);
    } catch {
      continue;
    }
    if (target.startsWith("/usr/")) args.push("--symlink", path.relative("/", target), dir);
    else args.push("--ro-bind", dir, dir);
  }
  // Hide installers the host may have in /usr: nothing may be installed at run time.
  for (const dir of installerDirs()) args.push("--tmpfs", dir);
  args.push(
    "--proc", "/proc",
    "--dev", "/dev",
    // bwrap's /dev is a tmpfs with no size limit: read-only, with a tiny /dev/shm of its own.
    "--remount-ro", "/dev",
    "--size", String(SANDBOX_SHM_BYTES), "--tmpfs", "/dev/shm",
    "--size", String(spec.tmpfsBytes), "--tmpfs", "/tmp",
    ...(mounts ? ["--ro-bind", mounts.data, DATASET_MOUNT, "--bind", mounts.out, ARTIFACT_MOUNT] : []),
    "--remount-ro", "/",
    "--chdir", "/tmp",
  );
  for (const [key, value] of SANDBOX_ENV) args.push("--setenv", key, value);
  // -I: isolated mode (no PYTHON* variables, no user site); -u: unbuffered; -: code from stdin.
  args.push("--", python, "-I", "-u", "-");
  return args;
}

let installerDirsCache: string[] | null = null;
function installerDirs(): string[] {
  if (installerDirsCache) return installerDirsCache;
  const dirs: string[] = [];
  const roots = ["/usr/lib/python3/dist-packages", "/usr/local/lib"];
  for (const entry of safeReaddir("/usr/lib")) {
    if (/^python3(?:\.\d+)?$/.test(entry)) roots.push(`/usr/lib/${entry}`, `/usr/lib/${entry}/site-packages`, `/usr/lib/${entry}/dist-packages`);
  }
  for (const entry of safeReaddir("/usr/local/lib")) {
    if (/^python3(?:\.\d+)?$/.test(entry)) roots.push(`/usr/local/lib/${entry}/site-packages`, `/usr/local/lib/${entry}/dist-packages`);
  }
  for (const root of roots) {
    for (const name of ["pip", "ensurepip"]) {
      const dir = path.join(root, name);
      if (existsSync(dir)) dirs.push(dir);
    }
  }
  installerDirsCache = dirs;
  return dirs;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * prlimit arguments: memory (address space), processes, file size, open files, no core dumps.
 * RLIMIT_NPROC counts every task of the real uid host-wide, so when the runner is not root (and
 * the sandbox shares the app's uid) the user's existing tasks are added to the allowance.
 */
export function prlimitArgs(spec: SandboxSpec, existingTasks = 0): string[] {
  return [
    `--as=${spec.memoryBytes}`,
    `--nproc=${spec.pidsLimit + existingTasks}`,
    `--fsize=${spec.fileSizeBytes}`,
    `--nofile=${spec.openFiles}`,
    "--core=0",
    // CPU seconds as a backstop to the wall-clock kill.
    `--cpu=${Math.ceil(spec.timeoutMs / 1000) + 1}`,
    "--",
  ];
}

export async function runInBwrap(spec: SandboxSpec, code: string, opts: RunOptions = {}): Promise<SandboxRunResult> {
  if (spec.isolation !== "namespace") throw new Error(`runInBwrap got a ${spec.isolation} spec`);
  const tools = assertBwrapReady(spec);
  const release = await sandboxLimiter().acquire(opts.signal);
  try {
    return await runOnce(spec, code, opts, tools);
  } finally {
    release();
  }
}

function runOnce(
  spec: SandboxSpec,
  code: string,
  opts: RunOptions,
  tools: { bwrap: string; prlimit: string; python: string },
): Promise<SandboxRunResult> {
  const started = performance.now();
  const output = new OutputCollector(spec.outputLimitChars, opts.onOutput);
  // The end of stderr, kept apart from the capped copy, to recognise a MemoryError.
  let stderrTail = "";
  let timedOut = false;
  let aborted = opts.signal?.aborted === true;
  const { gid } = parseUser(spec.user);
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

  return new Promise<SandboxRunResult>((resolve, reject) => {
    if (aborted) {
      resolve(emptyResult(started, { aborted: true }));
      return;
    }
    const existingTasks = asRoot ? 0 : countTasksOfUid(process.getuid?.() ?? -1);
    const spawnOptions: SpawnOptionsWithStdioTuple<StdioPipe, StdioPipe, StdioPipe> = {
      env: {} as NodeJS.ProcessEnv, // nothing from the host's environment (the cast: a project-wide ProcessEnv augmentation requires NODE_ENV)
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // own process group, so the deadline kills all of it
    };
    // Inside the namespace the code is the spec's user; on the host, when we can choose, the run
    // has a uid of its own: RLIMIT_NPROC does not bind root and counts per uid host-wide, and an
    // escape from the namespaces lands as an unprivileged uid no other run shares.
    const runUid = asRoot ? leaseRunUid() : null;
    if (runUid) {
      spawnOptions.uid = runUid.uid;
      spawnOptions.gid = gid;
    }
    let folder: RunFolder;
    try {
      folder = prepareRunFolder(opts.datasets ?? [], runUid?.uid ?? null, gid);
    } catch (err) {
      runUid?.release();
      reject(new SandboxUnavailableError(`could not prepare the run's /mnt/data and /mnt/out: ${(err as Error).message}`, { cause: err }));
      return;
    }
    const child = spawn(tools.prlimit, [...prlimitArgs(spec, existingTasks), tools.bwrap, ...bwrapArgs(spec, tools.python, folder)], spawnOptions);

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
      const oomKilled = !timedOut && !aborted && code !== 0 && /(?:^|\n)MemoryError\b[^\n]*\n?$/.test(stderrTail);
      const killed = timedOut || aborted || signal !== null;
      let artifacts: CollectedArtifacts;
      try {
        artifacts = collectArtifactsFromDir(folder.out, opts.artifactCaps ?? artifactCaps());
      } catch (err) {
        artifacts = { refused: `The files in ${ARTIFACT_MOUNT} could not be read (${(err as Error).message}), so none were kept.` };
      } finally {
        folder.remove();
      }
      const result = output.result({ isolation: "namespace", exitCode: killed ? null : code, timedOut, oomKilled, aborted, startedAt: started });
      resolve({ ...result, artifacts });
    });
  });
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
