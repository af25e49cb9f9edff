import { randomUUID } from "node:crypto";

/**
 * Calls `pump` until the signal aborts: again at once while it found work, else after `pollMs`. A
 * throw is logged by its message only (outbox errors can carry an endpoint or a reply) and the loop
 * goes on.
 */
export async function runPumpLoop(options: {
  name: string;
  pollMs: number;
  signal?: AbortSignal;
  workerId?: string;
  pump: (workerId: string) => Promise<{ added: number; attempted: number }>;
}): Promise<void> {
  const workerId = options.workerId ?? `${options.name}-${randomUUID().slice(0, 8)}`;
  while (!options.signal?.aborted) {
    let busy = false;
    try {
      const { added, attempted } = await options.pump(workerId);
      busy = added > 0 || attempted > 0;
    } catch (error) {
      console.error(`[countersign] ${options.name} worker ${workerId} error:`, error instanceof Error ? error.message : "unknown error");
    }
    if (busy) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.pollMs);
      function done() {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        resolve();
      }
      options.signal?.addEventListener("abort", done, { once: true });
    });
  }
}
