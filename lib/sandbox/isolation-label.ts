// What each isolation level means, in words for the reviewer who approves it (no Node imports:
// rendered on the action page next to the spec).

const LABELS: Record<string, string> = {
  gvisor: "gVisor (runsc): the code's system calls are served by gVisor's user-space kernel, not the host's",
  container: "Docker container (runc): namespaces, cgroups and seccomp on the host's kernel",
  namespace: "bubblewrap: Linux namespaces on the host's kernel, the sandbox image's root filesystem",
  none: "no sandbox: the code is denied and never runs",
};

/** A spec's isolation as a sentence, or null when the value is not one we know. */
export function isolationLabel(isolation: unknown): string | null {
  return typeof isolation === "string" && Object.hasOwn(LABELS, isolation) ? LABELS[isolation] : null;
}
