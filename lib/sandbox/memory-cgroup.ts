// The namespace sandbox's memory limit: a memory cgroup of its own per run where this process can
// create one (cgroup v1's memory controller, or a cgroup v2 subtree with the memory controller
// delegated to us), which counts what the code actually uses, page cache and children included.
// Otherwise RLIMIT_AS per process, with the reason recorded — weaker (per process, virtual size).
import { chownSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export type MemoryEnforcement =
  | { kind: "cgroup"; version: 1 | 2; parent: string; description: string }
  | { kind: "rlimit-as"; description: string };

let probed: MemoryEnforcement | null = null;

/** How bubblewrap runs are held to their memory limit here (probed once). */
export function memoryEnforcement(): MemoryEnforcement {
  probed ??= probe();
  return probed;
}

function probe(): MemoryEnforcement {
  const reasons: string[] = [];
  for (const candidate of [cgroupV2Parent(), cgroupV1Parent()]) {
    if ("reason" in candidate) {
      reasons.push(candidate.reason);
      continue;
    }
    const dir = path.join(candidate.parent, `countersign-probe-${process.pid}`);
    try {
      mkdirSync(dir);
      writeFileSync(path.join(dir, candidate.version === 1 ? "memory.limit_in_bytes" : "memory.max"), String(64 * 1024 * 1024));
      return {
        kind: "cgroup",
        version: candidate.version,
        parent: candidate.parent,
        description: `a memory cgroup per run (cgroup v${candidate.version} under ${candidate.parent})`,
      };
    } catch (err) {
      reasons.push(`cgroup v${candidate.version} at ${candidate.parent} is not writable (${err instanceof Error ? err.message : String(err)})`);
    } finally {
      try {
        rmdirSync(dir);
      } catch {
        // never created
      }
    }
  }
  return { kind: "rlimit-as", description: `RLIMIT_AS per process, since no memory cgroup can be created here: ${reasons.join("; ")}` };
}

function ownCgroupLines(): string[] {
  try {
    return readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return [];
  }
}

function cgroupV1Parent(): { version: 1; parent: string } | { reason: string } {
  const line = ownCgroupLines().find((l) => /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:/.test(l));
  if (!line) return { reason: "no cgroup v1 memory controller" };
  const own = line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1);
  const parent = path.join("/sys/fs/cgroup/memory", own);
  return existsSync(path.join(parent, "memory.limit_in_bytes")) ? { version: 1, parent } : { reason: `cgroup v1 memory hierarchy not mounted at ${parent}` };
}

function cgroupV2Parent(): { version: 2; parent: string } | { reason: string } {
  const line = ownCgroupLines().find((l) => l.startsWith("0::"));
  if (!line || !existsSync("/sys/fs/cgroup/cgroup.controllers")) return { reason: "no cgroup v2 hierarchy at /sys/fs/cgroup" };
  const parent = path.join("/sys/fs/cgroup", line.slice(3));
  try {
    const delegated = readFileSync(path.join(parent, "cgroup.subtree_control"), "utf8").split(/\s+/);
    if (!delegated.includes("memory")) return { reason: `cgroup v2: the memory controller is not delegated to ${parent}` };
  } catch (err) {
    return { reason: `cgroup v2: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { version: 2, parent };
}

export type RunCgroup = {
  /** The file a process writes its own pid to, to join the cgroup (before it execs the sandbox). */
  procsFile: string;
  /** Whether the kernel's OOM killer ended a process of this run. */
  oomKilled: () => boolean;
  /** Removes the cgroup once its processes are gone (retries briefly in the background). */
  remove: () => void;
};

/**
 * A cgroup for one run, limited to `memoryBytes` with no swap on top. `owner`: the uid the run's
 * first process has on the host, which must be able to write its pid into the procs file.
 */
export function createRunCgroup(enforcement: Extract<MemoryEnforcement, { kind: "cgroup" }>, name: string, memoryBytes: number, owner: number | null): RunCgroup {
  const dir = path.join(enforcement.parent, name);
  mkdirSync(dir);
  const write = (file: string, value: string) => writeFileSync(path.join(dir, file), value);
  if (enforcement.version === 1) {
    write("memory.limit_in_bytes", String(memoryBytes));
    if (existsSync(path.join(dir, "memory.memsw.limit_in_bytes"))) write("memory.memsw.limit_in_bytes", String(memoryBytes));
  } else {
    write("memory.max", String(memoryBytes));
    if (existsSync(path.join(dir, "memory.swap.max"))) write("memory.swap.max", "0");
  }
  const procsFile = path.join(dir, "cgroup.procs");
  if (owner !== null) chownSync(procsFile, owner, -1);
  return {
    procsFile,
    oomKilled: () => {
      try {
        const file = enforcement.version === 1 ? "memory.oom_control" : "memory.events";
        const match = /^oom_kill (\d+)$/m.exec(readFileSync(path.join(dir, file), "utf8"));
        return match !== null && Number(match[1]) > 0;
      } catch {
        return false;
      }
    },
    remove: () => removeWithRetry(dir, 0),
  };
}

function removeWithRetry(dir: string, attempt: number): void {
  try {
    rmdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (attempt >= 50) {
      console.error(`sandbox: could not remove cgroup ${dir}:`, err);
      return;
    }
    setTimeout(() => removeWithRetry(dir, attempt + 1), 100).unref();
  }
}

/**
 * How many times the kernel's OOM killer struck in the memory cgroup of host process `pid`, the
 * main process of container `containerId` on this host: the cgroup's own count (v1 memory.oom_control, v2
 * memory.events), or null when it cannot be read (another host's daemon, the process or its cgroup
 * gone already).
 */
export function oomKillsOfProcess(pid: number, containerId: string): number | null {
  if (!Number.isInteger(pid) || pid <= 0 || containerId.length < 12) return null;
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n");
  } catch {
    return null;
  }
  const v1 = lines.find((l) => /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:/.test(l));
  const v2 = lines.find((l) => l.startsWith("0::"));
  let file: string;
  if (v1) file = path.join("/sys/fs/cgroup/memory", v1.slice(v1.indexOf(":", v1.indexOf(":") + 1) + 1), "memory.oom_control");
  else if (v2) file = path.join("/sys/fs/cgroup", v2.slice(3), "memory.events");
  else return null;
  // A daemon in another PID namespace numbers its processes differently: the cgroup must be the container's.
  if (!file.includes(containerId)) return null;
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
