// Which process supervises a sandbox container, written on the container as a label, so start-up
// can reap the containers whose supervisor is gone whatever their age (their runs can no longer be
// watched, timed or recorded), while containers of live processes — other consoles and workers on
// this host, or any process on another host sharing the Docker daemon — are left alone.
import { readFileSync } from "node:fs";
import os from "node:os";

export const SANDBOX_OWNER_LABEL = "countersign.sandbox.owner";

/**
 * A process as `host/pid/start`: the start time (clock ticks since boot, /proc/<pid>/stat field 22)
 * tells a reused pid from the process that created the container. Empty where /proc is not there.
 */
export function processOwner(pid: number = process.pid): string {
  return `${os.hostname()}/${pid}/${processStartTime(pid) ?? ""}`;
}

function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null; // field 22 overall: fields[0] is field 3
  } catch {
    return null;
  }
}

/**
 * Whether the owner named by a container's label is known to be gone: a process on this host that
 * no longer runs, or whose pid now belongs to a process started at another time. A label from
 * another host (or none) is not known to be gone.
 */
export function ownerIsGone(label: string | undefined): boolean {
  if (!label) return false;
  const [host, pidText, start] = label.split("/");
  const pid = Number(pidText);
  if (host !== os.hostname() || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: a process of another user holds the pid — alive, but it is not the owner if its start differs.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return true;
  }
  const now = processStartTime(pid);
  return start !== undefined && start !== "" && now !== null && now !== start;
}
