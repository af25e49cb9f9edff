import type { Queryable } from "@/lib/db/sql";
import { writeLiveOutput } from "@/lib/db/statements/executions/write-live-output";

const FLUSH_EVERY_MS = 400;

/**
 * Keeps an execution's stdout/stderr in its row while it runs (a flush at most every 400 ms), so
 * every page that shows the execution — the requester's task timeline too, in any instance —
 * sees the output as it comes, not only at the end. The final record overwrites it.
 */
export function liveExecutionOutput(q: Queryable, tenantId: string, executionId: string) {
  const text = { stdout: "", stderr: "" };
  let dirty = false;
  let flushing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    if (!dirty) return flushing;
    dirty = false;
    const { stdout, stderr } = text;
    flushing = flushing
      .then(() => writeLiveOutput(q, { tenantId, executionId, stdout, stderr }))
      .catch(() => {}); // live output is a convenience; the final record is what counts
    return flushing;
  };
  const timer = setInterval(flush, FLUSH_EVERY_MS);
  return {
    push(stream: "stdout" | "stderr", chunk: string) {
      text[stream] += chunk;
      dirty = true;
    },
    async stop() {
      clearInterval(timer);
      await flushing;
    },
  };
}
