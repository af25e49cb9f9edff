import type { Db } from "@/lib/db/client";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { startDatabaseListener } from "@/lib/db/database-listener";
import { existingPerClient, perClient } from "@/lib/db/per-client";
import { beforeDisconnect } from "@/lib/db/pool-registry";
import { API_KEY_CHANGES_CHANNEL, listenForApiKeyChanges } from "@/lib/db/statements/api-keys/listen-for-api-key-changes";

export type ApiKeyCache = {
  /** The valid key whose secret hashes to `secretHash`, when this process may answer without the database. */
  lookup(secretHash: string): AuthenticatedApiKey | undefined;
  /** Taken before a key is read from the database, and handed to `store` with what was read. */
  mark(): number;
  /** Keeps a valid key read from the database, unless the cache was invalidated since `mark`. */
  store(secretHash: string, key: AuthenticatedApiKey, mark: number): void;
  /** Drops a key at once (it was revoked in this process). */
  forget(apiKeyId: string): void;
  /** Whether the cache is in use: only while its listener is listening. */
  readonly trusted: boolean;
  close(): Promise<void>;
};

const MAX_CACHED_KEYS = 10_000;

/**
 * Valid API keys in process memory by the SHA-256 of their secret (never the secret), so a known
 * key authenticates without a round trip. A key revoked here leaves at once, one revoked anywhere
 * when the database's notification arrives (migration api_key_announcements); while not listening,
 * the cache is emptied and bypassed, and a read that raced an invalidation is not stored (`mark`).
 * The statements that act re-check the key (docs/DESIGN.md, "What one process keeps in memory").
 */
export function createApiKeyCache(db: Db, options: { name?: string; heartbeatMs?: number; retryMs?: number } = {}): ApiKeyCache {
  const byHash = new Map<string, AuthenticatedApiKey>();
  const hashById = new Map<string, string>();
  let generation = 0;

  const clear = () => {
    generation++;
    byHash.clear();
    hashById.clear();
  };
  const forget = (apiKeyId: string) => {
    generation++;
    const hash = hashById.get(apiKeyId);
    if (hash === undefined) return;
    hashById.delete(apiKeyId);
    byHash.delete(hash);
  };

  const listener = startDatabaseListener(db, {
    name: options.name ?? "countersign api-key cache",
    channel: API_KEY_CHANGES_CHANNEL,
    listen: listenForApiKeyChanges,
    heartbeatMs: options.heartbeatMs,
    retryMs: options.retryMs,
    onNotification: (payload) => forget(payload),
    // Either way, nothing read before this moment may be kept: when listening stops, because
    // notifications may be missed from now on; when it starts, because some may have been.
    onListeningChange: () => clear(),
  });

  return {
    lookup(secretHash) {
      return listener.listening ? byHash.get(secretHash) : undefined;
    },
    mark() {
      return generation;
    },
    store(secretHash, key, mark) {
      if (!listener.listening || mark !== generation) return;
      if (byHash.size >= MAX_CACHED_KEYS) clear();
      // Shared by every request that presents the key: nobody may change it.
      Object.freeze(key.apiKey.allowedTools);
      byHash.set(secretHash, Object.freeze({ apiKey: Object.freeze(key.apiKey), tenant: Object.freeze(key.tenant) }));
      hashById.set(key.apiKey.id, secretHash);
    },
    forget,
    get trusted() {
      return listener.listening;
    },
    close: () => listener.close(),
  };
}

/** The process's cache for the client (its listener starts on first use, and stops on disconnect). */
export function apiKeyCacheFor(db: Db): ApiKeyCache {
  return perClient("apiKeyCache", db, () => {
    const cache = createApiKeyCache(db);
    beforeDisconnect(db, () => cache.close());
    return cache;
  });
}

/** Drops a key from this process's cache, if it has one (a process that never authenticated keys has none). */
export function forgetApiKey(db: Db, apiKeyId: string): void {
  existingPerClient<ApiKeyCache>("apiKeyCache", db)?.forget(apiKeyId);
}
