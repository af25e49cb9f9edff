import type { Db } from "@/lib/db/client";
import { flushedPerClient } from "@/lib/db/flush-on-signals";
import { isClosed } from "@/lib/db/sql";
import { touchApiKeysLastUsed } from "@/lib/db/statements/api-keys/touch-api-keys-last-used";

/** lastUsedAt is a hint for admins: written at most once a minute per key, not on every request. */
export const LAST_USED_RESOLUTION_SECONDS = 60;
/** How long a use waits in memory before it is written with the others. */
const FLUSH_MS = 1_000;

export type ApiKeyUseRecorder = {
  record(apiKeyId: string): void;
  /** Writes every use recorded so far, in one statement. */
  flush(): Promise<void>;
};

/**
 * Keeps `lastUsedAt` off the request path: a use is noted in memory (once a minute per key) and
 * flushed in one statement a second later, on disconnect or on stop. A failed write is logged and
 * retried at the next flush.
 */
export function createApiKeyUseRecorder(db: Db, options: { flushMs?: number } = {}): ApiKeyUseRecorder {
  const flushMs = options.flushMs ?? FLUSH_MS;
  const notedAt = new Map<string, number>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  async function write(): Promise<void> {
    timer = undefined;
    if (pending.size === 0 || isClosed(db)) return;
    const ids = [...pending];
    pending.clear();
    try {
      await touchApiKeysLastUsed(db, { apiKeyIds: ids, resolutionSeconds: LAST_USED_RESOLUTION_SECONDS });
    } catch (error) {
      for (const id of ids) pending.add(id);
      console.error(`[countersign] recording API key use failed: ${(error as Error).message}`);
    }
    // Forget keys not noted for a while, so the map holds only keys in use.
    const cutoff = Date.now() - LAST_USED_RESOLUTION_SECONDS * 1000;
    for (const [id, at] of notedAt) if (at < cutoff) notedAt.delete(id);
  }

  const flush = () => (flushing = flushing.then(write));

  return {
    record(apiKeyId) {
      const now = Date.now();
      const last = notedAt.get(apiKeyId);
      if (last !== undefined && now - last < LAST_USED_RESOLUTION_SECONDS * 1000) return;
      notedAt.set(apiKeyId, now);
      pending.add(apiKeyId);
      if (!timer) {
        timer = setTimeout(() => void flush(), flushMs);
        timer.unref();
      }
    },
    flush() {
      if (timer) clearTimeout(timer);
      return flush();
    },
  };
}

/** The process's recorder for the client, flushed before the client disconnects and on SIGTERM/SIGINT. */
export function apiKeyUseRecorderFor(db: Db): ApiKeyUseRecorder {
  return flushedPerClient("apiKeyUseRecorder", db, () => createApiKeyUseRecorder(db));
}
