// gVisor (runsc) as a Docker runtime: the "gvisor" isolation level. The code's system calls are
// served by gVisor's user-space kernel, so a kernel bug reachable from the code is gVisor's, not
// the host's. Registered in /etc/docker/daemon.json by scripts/ensure-system.sh.
import type Docker from "dockerode";
import type { SandboxIsolation, SandboxSpec } from "./spec";
import { SandboxUnavailableError } from "./types";

export const GVISOR_RUNTIME = "runsc";

/** The Docker runtime a spec's isolation names; runc explicitly, so a daemon default cannot swap it. */
export function dockerRuntime(isolation: SandboxIsolation): string {
  return isolation === "gvisor" ? GVISOR_RUNTIME : "runc";
}

/**
 * The container's pids cgroup limit. Under runc it is the code's process limit. Under gVisor the
 * code's processes live inside gVisor's kernel, which enforces the spec's limit itself
 * (RLIMIT_NPROC = pidsLimit, see the container's ulimits); the host cgroup then bounds gVisor's own
 * threads (its sentry and gofer: about four host threads per busy guest task, plus a fixed base),
 * and at the spec's number it could not even start.
 */
export function hostPidsLimit(spec: Pick<SandboxSpec, "isolation" | "pidsLimit">): number {
  return spec.isolation === "gvisor" ? GVISOR_BASE_THREADS + GVISOR_THREADS_PER_TASK * spec.pidsLimit : spec.pidsLimit;
}
const GVISOR_BASE_THREADS = 256;
const GVISOR_THREADS_PER_TASK = 8;

/** Whether the daemon has runsc registered (daemon.json "runtimes"). */
export async function dockerHasGvisor(docker: Docker): Promise<boolean> {
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  return Object.hasOwn(info.Runtimes ?? {}, GVISOR_RUNTIME);
}

const REGISTER_HINT = "run scripts/ensure-system.sh as root (installs runsc and registers it in /etc/docker/daemon.json)";

/** Throws SandboxUnavailableError unless the daemon can start gVisor containers. */
export async function assertGvisorRegistered(docker: Docker): Promise<void> {
  let registered: boolean;
  try {
    registered = await dockerHasGvisor(docker);
  } catch (err) {
    throw new SandboxUnavailableError(`Docker daemon does not answer: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!registered) throw new SandboxUnavailableError(`gVisor (runsc) is not registered with Docker; ${REGISTER_HINT}`);
}

/** What a gVisor probe run must print: the kernel gVisor reports (4.4.0 for every gVisor release). */
export const GVISOR_PROBE_CODE = "import platform\nprint('countersign-probe', platform.release())\n";
export const GVISOR_KERNEL_RELEASE = "4.4.0";
