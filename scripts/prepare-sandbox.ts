import { spawnSync } from "node:child_process";
import path from "node:path";
import { dockerClient, resolveSandboxImageId, sandboxImageTag } from "@/lib/sandbox/docker-runner";
import { detectGvisor, detectSandbox } from "@/lib/sandbox/select-runner";
import { readEnv } from "@/lib/env";

/**
 * The best sandbox this machine offers: Docker (started here when we may, gVisor registered with it
 * where it can be, the image built when it is missing, with progress), else bubblewrap, else none — and then code is refused, never run
 * on the host.
 */
export async function prepareSandbox(options: { root: string; log: (line: string) => void }): Promise<{ summary: string }> {
  const mode = readEnv("SANDBOX_MODE");
  if (mode === "auto" || mode === "docker") {
    spawnSync("bash", [path.join(options.root, "scripts/start-dockerd.sh")], { stdio: "inherit" });
    // gVisor as a Docker runtime where it can be (one line saying so, or why not).
    spawnSync("bash", [path.join(options.root, "scripts/register-gvisor.sh")], { stdio: "inherit" });
    const reachable = await dockerClient().ping().then(() => true, () => false);
    if (reachable) {
      const hasImage = await resolveSandboxImageId(sandboxImageTag()).then(() => true, () => false);
      if (!hasImage) {
        options.log(`Building the sandbox image ${sandboxImageTag()} from Debian packages (about a minute, once)…`);
        const build = spawnSync("bash", [path.join(options.root, "scripts/build-sandbox-image.sh")], { stdio: "inherit" });
        if (build.status !== 0) options.log("The sandbox image could not be built; falling back (see above).");
      }
    }
  }
  const detection = await detectSandbox({ fresh: true });
  const gvisor = detection.available ? await detectGvisor() : null;
  return {
    summary: detection.available
      ? `${detection.isolation} — ${detection.reason}; gVisor: ${gvisor?.spec ? "available (SANDBOX_RUNTIME=runsc or a policy rule uses it)" : gvisor?.reason}`
      : `none — code execution will be refused: ${detection.reason}`,
  };
}
