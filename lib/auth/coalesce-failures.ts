/** One window's worth of the same failure: what the first attempt said, and how many there were. */
export type CoalescedFailure<T> = { detail: T; attempts: number; firstAt: Date; lastAt: Date; windowSeconds: number };

export type FailureCoalescer<T> = {
  /** Counts one failure under `key`; the first of a window keeps `detail`, later ones are merged into it. */
  note(key: string, detail: T): void;
  /** Writes every open window now, and waits for every write started so far. */
  flush(): Promise<void>;
};

export type FailureCoalescerOptions<T> = {
  windowMs: number;
  /** Open windows held at most; past it every open window is written early (so memory stays bounded). */
  maxKeys: number;
  write: (failure: CoalescedFailure<T>) => Promise<void>;
  merge?: (kept: T, next: T) => T;
  /** Names what failed to be written, for the log line. */
  label: string;
};

/**
 * Failures a caller may repeat as fast as it likes, counted in memory: the first under a key opens
 * a window, and when it closes one write records them all, so the caller pays a map update, never
 * a round trip. Best effort: a failed write is logged (without its detail), not retried.
 */
export function createFailureCoalescer<T>(options: FailureCoalescerOptions<T>): FailureCoalescer<T> {
  type Window = CoalescedFailure<T> & { timer: NodeJS.Timeout };
  const open = new Map<string, Window>();
  const writing = new Set<Promise<void>>();

  function close(key: string): void {
    const window = open.get(key);
    if (!window) return;
    open.delete(key);
    clearTimeout(window.timer);
    const { detail, attempts, firstAt, lastAt, windowSeconds } = window;
    const write = options.write({ detail, attempts, firstAt, lastAt, windowSeconds }).catch((error: unknown) => {
      console.error(`[countersign] could not record ${options.label}: ${(error as Error).message}`);
    });
    writing.add(write);
    void write.finally(() => writing.delete(write));
  }

  const closeAll = () => {
    for (const key of [...open.keys()]) close(key);
  };

  return {
    note(key, detail) {
      const now = new Date();
      const window = open.get(key);
      if (window) {
        window.attempts++;
        window.lastAt = now;
        if (options.merge) window.detail = options.merge(window.detail, detail);
        return;
      }
      if (open.size >= options.maxKeys) closeAll();
      const timer = setTimeout(() => close(key), options.windowMs);
      timer.unref();
      open.set(key, { detail, attempts: 1, firstAt: now, lastAt: now, windowSeconds: Math.round(options.windowMs / 1000), timer });
    },
    async flush() {
      closeAll();
      await Promise.all([...writing]);
    },
  };
}
