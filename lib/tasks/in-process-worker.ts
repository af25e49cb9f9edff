import { configuredModel } from "@/lib/agent/providers";
import { getDb } from "@/lib/db/client";
import { sweepSandboxContainers } from "@/lib/sandbox/docker-runner";
import { startSandboxPool, stopSandboxPool } from "@/lib/sandbox/pool-lifecycle";
import { newWorkerId, runWorker } from "@/lib/tasks/task-worker";
import { runNotificationWorkers } from "@/lib/channels/run-notification-workers";

const globalForWorker = globalThis as unknown as { countersignWorker?: AbortController };

/** One worker inside the web server process (the default start command). */
export function startInProcessWorker(): void {
  if (globalForWorker.countersignWorker) return;
  const controller = new AbortController();
  globalForWorker.countersignWorker = controller;
  const model = configuredModel();
  void sweepSandboxContainers().catch(() => 0);
  startSandboxPool(); // when SANDBOX_POOL_SIZE > 0: Docker runs take a warm container
  void runWorker({ db: getDb(), model: () => model, workerId: newWorkerId(), signal: controller.signal });
  void runNotificationWorkers({ db: getDb(), signal: controller.signal });
  process.once("SIGTERM", () => {
    controller.abort();
    void stopSandboxPool().catch(() => {}); // what a hard exit leaves, the next start-up sweep removes
  });
}
