// The process-wide warm pool: started by the console's in-process worker and `npm run worker`
// when SANDBOX_POOL_SIZE > 0, drained on graceful shutdown. After a crash its containers are
// removed by the next start-up sweep (they carry the owner label like every sandbox container).
import { ContainerPool } from "./container-pool";
import { settleSandboxRemovals } from "./docker-container";
import { setWarmPool } from "./docker-runner";
import { detectSandbox } from "./select-runner";
import { readEnv } from "@/lib/env";

let shared: ContainerPool | null = null;

/** Starts the pool (if configured) and warms it for the spec new approvals carry. */
export function startSandboxPool(): ContainerPool | null {
  if (shared) return shared;
  const size = readEnv("SANDBOX_POOL_SIZE") ?? 2;
  if (size === 0) return null;
  const pool = new ContainerPool({ size });
  shared = pool;
  setWarmPool(pool);
  void detectSandbox()
    .then((detection) => {
      // The detected spec (Docker, or gVisor under SANDBOX_RUNTIME=runsc). A gVisor slot for code a
      // policy sends to gVisor fills on its first such run and stays warm until idle.
      if (detection.spec) pool.warm(detection.spec);
    })
    .catch(() => {
      // No sandbox detected yet: the pool fills on the first run instead.
    });
  return pool;
}

/** Removes the pool's containers and waits for every sandbox container removal in flight. */
export async function stopSandboxPool(): Promise<void> {
  const pool = shared;
  shared = null;
  setWarmPool(null);
  await pool?.drain();
  await settleSandboxRemovals();
}
