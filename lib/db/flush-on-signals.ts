import { perClient } from "@/lib/db/per-client";
import { beforeDisconnect } from "@/lib/db/pool-registry";

/**
 * Runs `flush` on SIGTERM or SIGINT, for in-memory work that should reach the database; returns
 * its removal. It does not take the exit over: other handlers (Next.js, a worker's) still run, and
 * with none the signal is raised again once every flush settled. One pair of listeners per process.
 */
type Registry = { flushers: Set<() => Promise<void>>; installed: boolean };
const REGISTRY = Symbol.for("countersign.flushOnSignals");

export function flushOnSignals(flush: () => Promise<void>): () => void {
  const store = globalThis as unknown as Record<symbol, Registry | undefined>;
  const registry = (store[REGISTRY] ??= { flushers: new Set(), installed: false });
  registry.flushers.add(flush);
  if (!registry.installed) {
    registry.installed = true;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        void Promise.allSettled([...registry.flushers].map((fn) => fn())).finally(() => {
          if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
        });
      });
    }
  }
  return () => {
    registry.flushers.delete(flush);
  };
}

/**
 * For in-memory work of one database client (batched counters): flushed when the process is asked
 * to stop, and before the client disconnects (which also takes it off the signal list).
 */
export function flushWithClient(db: object, flush: () => Promise<void>): void {
  const stopFlushingOnSignals = flushOnSignals(flush);
  beforeDisconnect(db, () => {
    stopFlushingOnSignals();
    return flush();
  });
}

/** The client's one `T` in this process (perClient), flushed as flushWithClient says. */
export function flushedPerClient<T extends { flush(): Promise<void> }>(name: string, db: object, create: () => T): T {
  return perClient(name, db, () => {
    const value = create();
    flushWithClient(db, () => value.flush());
    return value;
  });
}
