import { createHash } from "node:crypto";
import pg, { type Pool, type PoolClient, type QueryResultRow } from "pg";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { DbTx } from "@/lib/db/client";

/**
 * The hot paths (propose, decide, claim, record) talk to PostgreSQL through the pg pool Prisma's
 * adapter already uses: a statement through Prisma costs ~0.7 ms of Node CPU, through pg ~0.1 ms,
 * and those paths are CPU-bound on the Node side. Queries are written with Prisma's `sql` tag, so
 * values are always bound parameters, never spliced into the text.
 */
// Kept on the client object itself, under a global symbol: Next.js may bundle this module more
// than once (instrumentation, route handlers), and a module-level map would not be shared.
const POOL = Symbol.for("countersign.pgPool");

// The entry names the client it belongs to: a Prisma transaction client is a proxy of the client
// it came from and sees the same property, but must never be mistaken for it (its statements
// have to run inside its transaction).
type PoolEntry = { pool: Pool; owner: object };
const entryOf = (db: object) => (db as { [POOL]?: PoolEntry })[POOL];
const pools = {
  get: (db: object): Pool | undefined => {
    const entry = entryOf(db);
    return entry && entry.owner === db ? entry.pool : undefined;
  },
  has: (db: object): boolean => entryOf(db)?.owner === db,
};

export function registerPool(db: object, pool: Pool): void {
  Object.defineProperty(db, POOL, { value: { pool, owner: db } satisfies PoolEntry, enumerable: false });
}

/** int8 comes back as bigint, as it does through Prisma (pg's default is a string). */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 && format !== "binary" ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A JSON value as a statement parameter (cast it with `::jsonb`); null and undefined stay NULL. */
export function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A connection for statements that must share one transaction. */
export type SqlClient = { query<T extends QueryResultRow>(statement: Sql): Promise<T[]> };

/**
 * Hot-path statements are prepared once per connection (a named statement) instead of parsed and
 * planned on every call: for the multi-CTE writes that planning was a large part of their cost.
 * A name is a hash of the text, so every copy of this module (Next.js bundles it more than once)
 * gives one text the same name on a shared connection. The number of distinct texts is bounded
 * by the code; past a limit (text built from data, say) statements simply go unnamed.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 500;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `cs_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return name;
}

function clientOf(conn: Pool | PoolClient): SqlClient {
  return {
    async query<T extends QueryResultRow>(statement: Sql) {
      const text = statement.text;
      const result = await conn.query<T>({ name: statementName(text), text, values: statement.values as unknown[], types });
      return result.rows;
    },
  };
}

/**
 * One statement. On the app's client it runs on the pg pool (autocommit); on a Prisma
 * transaction client it runs inside that transaction.
 */
export async function sqlQuery<T extends QueryResultRow>(db: DbTx, statement: Sql): Promise<T[]> {
  const pool = pools.get(db);
  if (pool) return clientOf(pool).query<T>(statement);
  return db.$queryRaw<T[]>(statement);
}

/** Whether the client's pool has been ended ($disconnect). */
export function isClosed(db: DbTx): boolean {
  const pool = pools.get(db) as (Pool & { ending?: boolean }) | undefined;
  return pool?.ending === true || pool?.ended === true;
}

/** Whether `db` is a whole client with a pool (not a Prisma transaction). */
export function hasPool(db: DbTx): boolean {
  return pools.has(db);
}

/**
 * Runs `fn` in one pg transaction on a connection of the client's pool: committed if it
 * returns, rolled back if it throws.
 */
export async function sqlTransaction<T>(db: DbTx, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const pool = pools.get(db);
  if (!pool) throw new Error("sqlTransaction needs the app's database client, not a transaction client.");
  const conn = await pool.connect();
  let broken = false;
  try {
    await conn.query("BEGIN");
    const result = await fn(clientOf(conn));
    await conn.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await conn.query("ROLLBACK");
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    conn.release(broken || undefined);
  }
}
