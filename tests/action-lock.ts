import { Client } from "pg";
import { expect } from "vitest";

/** How long waiting for a backend to queue on a lock may take on a loaded machine (not a speed assertion). */
const EVENTUALLY = { timeout: 30_000, interval: 20 };

/**
 * How many backends wait for a lock `holder`'s transaction holds — directly, or behind one that
 * does — never another test's lock waits in the same database.
 */
export async function queuedBehind(holder: Client): Promise<number> {
  // Inside a transaction PostgreSQL keeps the first view of pg_stat_activity it gave: drop it, or a
  // backend connected since (a pool's new connection) is never seen.
  await holder.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await holder.query<{ n: number }>(`
    WITH RECURSIVE queued(pid) AS (
      SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))
      UNION
      SELECT a.pid FROM pg_stat_activity a JOIN queued q ON q.pid = ANY (pg_blocking_pids(a.pid))
    )
    SELECT count(*)::int AS n FROM queued`);
  return rows[0].n;
}

/**
 * Runs `statements` in a transaction of another connection and holds what they lock while `during`
 * runs, then ends that transaction (`end`: COMMIT by default, ROLLBACK to undo what it wrote):
 * what `during` starts that needs those rows queues behind it. `during` gets `waiters(n)`, which
 * resolves once `n` backends wait on a lock this transaction holds (or on one such a backend holds),
 * so a test can order "the act waits" before "the change ends". Return what waits wrapped
 * (`{ run }`), never the bare promise: awaiting it before the end would wait forever.
 */
export async function whileHolding<T>(
  databaseUrl: string,
  statements: ReadonlyArray<readonly [text: string, values?: unknown[]]>,
  during: (waiters: (n: number) => Promise<void>, holder: Client) => Promise<T>,
  options: { end?: "COMMIT" | "ROLLBACK" } = {},
): Promise<T> {
  const holder = new Client({ connectionString: databaseUrl });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    for (const [text, values] of statements) await holder.query(text, values);
    const waiters = async (n: number) => {
      await expect.poll(() => queuedBehind(holder), EVENTUALLY).toBeGreaterThanOrEqual(n);
    };
    const value = await during(waiters, holder);
    await holder.query(options.end ?? "COMMIT");
    return value;
  } finally {
    await holder.end();
  }
}

/**
 * Holds an action's row lock (FOR UPDATE) from another connection while `during` runs, and
 * commits after it (whileHolding): what `during` starts that locks the action — a vote, a claim, a
 * reopen — queues behind it.
 */
export function whileActionLocked<T>(databaseUrl: string, actionId: string, during: (waiters: (n: number) => Promise<void>) => Promise<T>): Promise<T> {
  return whileHolding(databaseUrl, [[`SELECT 1 FROM "Action" WHERE id = $1 FOR UPDATE`, [actionId]]], during);
}

/**
 * Two acts queued behind an action's row lock in a known order: `first` starts and waits on a lock,
 * then `second` starts and waits on one too, then the lock is released. Each outcome is handled
 * from the moment its act starts (as Promise.allSettled gives it), so an early rejection is a result
 * for the test to assert on, never an unhandled one.
 */
export async function actInOrderBehindActionLock<A, B>(
  databaseUrl: string, actionId: string, first: () => Promise<A>, second: () => Promise<B>,
): Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]> {
  const queued = await whileActionLocked(databaseUrl, actionId, async (waiters) => {
    const firstOutcome = settled(first());
    await waiters(1);
    const secondOutcome = settled(second());
    await waiters(2);
    return { outcomes: Promise.all([firstOutcome, secondOutcome]) }; // not awaited here: they wait for the lock this holds
  });
  return queued.outcomes;
}

export function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then((value) => ({ status: "fulfilled" as const, value }), (reason: unknown) => ({ status: "rejected" as const, reason }));
}
