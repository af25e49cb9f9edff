import { randomUUID } from "node:crypto";

/**
 * The loop every outbox worker runs (one per channel, run-outbox-workers.ts): call `pump` until the
 * signal aborts, straight again while it found work, otherwise after `pollMs` (or at once when
 * aborted). A pump that throws is logged by its message only — outbox errors can carry an
 * endpoint or a server's reply — and the loop goes on. Leases in the outbox itself keep two
 * loops (in one process or many) from handling one row at once.
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
