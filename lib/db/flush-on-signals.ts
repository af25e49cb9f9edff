/**
 * Runs `flush` when the process is asked to stop (SIGTERM, SIGINT), for work kept in memory that
 * should still reach the database. It does not take the exit over: whoever else handles the
 * signal (Next.js's server, a worker's own handler) still does, and when nobody else does, the
 * signal is raised again once `flush` settles, so the process ends as it would have.
 */
export function flushOnSignals(flush: () => Promise<void>): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void flush()
        .catch(() => {})
        .finally(() => {
          if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
        });
    });
  }
}
