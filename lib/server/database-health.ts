export type DatabaseHealth =
  | { ok: true; latencyMs: number; checkedAgoMs: number }
  | { ok: false; error: string; checkedAgoMs: number | null };

export type DatabaseHealthMonitor = {
  /** The latest answer, waiting only for the very first ping, and for that at most `staleAfterMs`. */
  read(): Promise<DatabaseHealth>;
  stop(): void;
};

type Outcome = { ok: true; latencyMs: number; at: number } | { ok: false; at: number };

/**
 * The database's reachability for `/api/health`, from a background ping every `everyMs`: a probe
 * costs no round trip and never queues for a connection, so it says whether the database answers,
 * not how long the app's queue is. A ping not back within `staleAfterMs` (a hung database) is down.
 */
export function createDatabaseHealthMonitor(
  ping: () => Promise<unknown>,
  options: { everyMs?: number; staleAfterMs?: number; now?: () => number } = {},
): DatabaseHealthMonitor {
  const everyMs = options.everyMs ?? 1_000;
  const staleAfterMs = options.staleAfterMs ?? 5_000;
  const now = options.now ?? (() => performance.now());
  let last: Outcome | null = null;
  /** When the first ping started (the first read starts it), for the first read's time limit. */
  let firstStarted: number | null = null;
  let pinging: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const pingOnce = (): Promise<void> => {
    if (pinging) return pinging;
    const started = now();
    pinging = ping()
      .then(
        () => void (last = { ok: true, latencyMs: Math.round(now() - started), at: now() }),
        () => void (last = { ok: false, at: now() }),
      )
      .finally(() => {
        pinging = null;
        if (!stopped) timer = setTimeout(() => void pingOnce(), everyMs).unref();
      });
    return pinging;
  };

  return {
    async read() {
      if (last === null) {
        // The very first ping: waited for, but never longer than an answer may be old.
        firstStarted ??= now();
        const left = firstStarted + staleAfterMs - now();
        let limit: NodeJS.Timeout | undefined;
        await Promise.race([pingOnce(), new Promise<void>((resolve) => (limit = setTimeout(resolve, Math.max(0, left))))]);
        clearTimeout(limit);
      }
      if (last === null) return { ok: false, error: `The database has not answered in ${Math.round(staleAfterMs / 1000)} s since the console started.`, checkedAgoMs: null };
      const outcome: Outcome = last;
      const ago = Math.round(now() - outcome.at);
      if (ago > staleAfterMs) {
        return { ok: false, error: `The database has not answered for ${Math.round(ago / 1000)} s.`, checkedAgoMs: ago };
      }
      return outcome.ok
        ? { ok: true, latencyMs: outcome.latencyMs, checkedAgoMs: ago }
        : { ok: false, error: "The database did not answer.", checkedAgoMs: ago };
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
