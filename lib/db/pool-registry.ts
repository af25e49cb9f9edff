import pg, { type Client, type Pool } from "pg";
import { PriorityGate } from "@/lib/scheduling/priority-gate";

// Kept on the client object itself, under a global symbol: Next.js may bundle this module more
// than once (instrumentation, route handlers), and a module-level map would not be shared.
const POOL = Symbol.for("countersign.pgPool");

// The entry names its client: a Prisma transaction client is a proxy that sees the same property
// but must not be taken for it (its statements run in its transaction). The gate hands out the
// pool's connections, urgent waiters first, and is sized like the pool.
export type PoolEntry = { pool: Pool; gate: PriorityGate; owner: object; beforeClose: Array<() => Promise<void>> };
const entryOf = (db: object) => (db as { [POOL]?: PoolEntry })[POOL];
export const pools = {
  get: (db: object): PoolEntry | undefined => {
    const entry = entryOf(db);
    return entry && entry.owner === db ? entry : undefined;
  },
  has: (db: object): boolean => entryOf(db)?.owner === db,
};

export function registerPool(db: object, pool: Pool): void {
  const gate = new PriorityGate(pool.options.max ?? 10);
  Object.defineProperty(db, POOL, { value: { pool, gate, owner: db, beforeClose: [] } satisfies PoolEntry, enumerable: false });
}

/**
 * Runs `fn` when the client is disconnected, before its pool ends: for work kept in memory that
 * must still reach the database (batched counters), and connections of its own to close.
 */
export function beforeDisconnect(db: object, fn: () => Promise<void>): void {
  const entry = pools.get(db);
  if (!entry) throw new Error("beforeDisconnect needs the app's database client.");
  entry.beforeClose.push(fn);
}

/** Runs what `beforeDisconnect` registered (the client's $disconnect calls this). */
export async function runBeforeDisconnect(db: object): Promise<void> {
  const hooks = pools.get(db)?.beforeClose.splice(0) ?? [];
  const results = await Promise.allSettled(hooks.map((fn) => fn()));
  for (const result of results) {
    if (result.status === "rejected") console.error(`[countersign] work before disconnecting failed: ${(result.reason as Error).message}`);
  }
}

/**
 * A connection of its own with the pool's settings, outside the pool: for a LISTEN, which needs
 * a session that stays put. `name` is its application_name (pg_stat_activity shows it). The
 * caller connects and ends it.
 */
export function dedicatedConnection(db: object, name: string): Client {
  const entry = pools.get(db);
  if (!entry) throw new Error("dedicatedConnection needs the app's database client.");
  return new pg.Client({ ...entry.pool.options, application_name: name, keepAlive: true });
}
