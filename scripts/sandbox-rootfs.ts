// Extracts the sandbox image's rootfs for bubblewrap (lib/sandbox/rootfs.ts), if it is not yet:
// from the cached tarball build-sandbox-image.sh wrote, else `docker export` of the image.
//   node --import tsx scripts/sandbox-rootfs.ts
import { dockerClient, sandboxImageTag } from "../lib/sandbox/docker-runner";
import { memoryEnforcement } from "../lib/sandbox/memory-cgroup";
import { ensureBwrapRootfs } from "../lib/sandbox/rootfs";

async function main(): Promise<void> {
  const { dir } = await ensureBwrapRootfs({ docker: dockerClient(), image: sandboxImageTag() });
  console.log(`bubblewrap rootfs: ${dir}`);
  console.log(`bubblewrap memory limit: ${memoryEnforcement().description}`);
}

main().catch((err: unknown) => {
  console.error(`bubblewrap rootfs not prepared: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
