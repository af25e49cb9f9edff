import { createHash } from "node:crypto";
import pg, { type Client, type Pool, type PoolClient, type QueryResultRow } from "pg";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { Db, DbTx } from "@/lib/db/client";
import { pools, type PoolEntry } from "@/lib/db/pool-registry";
import { isUrgent } from "@/lib/scheduling/urgency";

/**
 * The hot paths (propose, decide, claim, record) talk to PostgreSQL through the pg pool Prisma's
 * adapter already uses: a statement through Prisma costs ~0.7 ms of Node CPU, through pg ~0.1 ms,
 * and those paths are CPU-bound on the Node side. Queries are written with Prisma's `sql` tag, so
 * values are always bound parameters, never spliced into the text.
 */
/** Statements on a dedicated connection (see dedicatedConnection). */
export function sqlClientOf(conn: Client): SqlClient {
  return clientOf(conn);
}

/** Waits for one of the pool's connections, urgent work first (lib/scheduling/urgency.ts). */
function acquireConnection(entry: PoolEntry): Promise<void> | undefined {
  return entry.gate.acquire(isUrgent());
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

/**
 * `prepare: false` sends a statement unnamed, so PostgreSQL plans it for each call's values. For
 * reads whose best plan depends on those values (the audit explorer's filters, date ranges and
 * limits): a named statement may settle on one generic plan after a few runs, and texts built
 * from filters would use up the named-statement budget of the hot paths (see statementName).
 */
export type QueryOptions = { prepare?: boolean };

/** A connection for statements that must share one transaction. */
export type SqlClient = { query<T extends QueryResultRow>(statement: Sql, options?: QueryOptions): Promise<T[]> };

/**
 * What a statement runs on: the app's client (autocommit on its pool), a Prisma transaction
 * client, or the connection of a `sqlTransaction`. Statements (lib/db/statements/) take this.
 */
export type Queryable = DbTx | SqlClient;

function isSqlClient(q: Queryable): q is SqlClient {
  return typeof (q as Partial<SqlClient>).query === "function" && !("$queryRaw" in q);
}

/** Runs one statement on whatever `q` is (see Queryable). */
export function query<T extends QueryResultRow>(q: Queryable, statement: Sql, options?: QueryOptions): Promise<T[]> {
  return isSqlClient(q) ? q.query<T>(statement, options) : sqlQuery<T>(q, statement, options);
}

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

function clientOf(conn: Pool | PoolClient | Client): SqlClient {
  return {
    async query<T extends QueryResultRow>(statement: Sql, options?: QueryOptions) {
      const text = statement.text;
      const name = options?.prepare === false ? undefined : statementName(text);
      const result = await conn.query<T>({ name, text, values: statement.values as unknown[], types });
      return result.rows;
    },
  };
}

/**
 * One statement. On the app's client it runs on the pg pool (autocommit); on a Prisma
 * transaction client it runs inside that transaction (unnamed there, whatever `options` say).
 */
export async function sqlQuery<T extends QueryResultRow>(db: DbTx, statement: Sql, options?: QueryOptions): Promise<T[]> {
  const entry = pools.get(db);
  if (!entry) return db.$queryRaw<T[]>(statement);
  await acquireConnection(entry);
  try {
    return await clientOf(entry.pool).query<T>(statement, options);
  } finally {
    entry.gate.release();
  }
}

/** Whether the client's pool has been ended ($disconnect). */
export function isClosed(db: DbTx): boolean {
  const pool = pools.get(db)?.pool as (Pool & { ending?: boolean }) | undefined;
  return pool?.ending === true || pool?.ended === true;
}

/** Whether `db` is a whole client with a pool (not a Prisma transaction, not a transaction's connection). */
export function hasPool(db: object): db is Db {
  return pools.has(db);
}

/**
 * Runs `fn` in one pg transaction on a connection of the client's pool: committed if it
 * returns, rolled back if it throws. `fn` uses `tx` only: the transaction holds one of the
 * gate's slots, so statements on the client from inside it could wait for themselves.
 */
export async function sqlTransaction<T>(db: DbTx, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const entry = pools.get(db);
  if (!entry) throw new Error("sqlTransaction needs the app's database client, not a transaction client.");
  await acquireConnection(entry);
  let conn: PoolClient;
  try {
    conn = await entry.pool.connect();
  } catch (error) {
    entry.gate.release();
    throw error;
  }
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
    entry.gate.release();
  }
}

/**
 * Runs `fn` on one connection of the client's pool, each statement committed on its own: for work
 * that holds a session's lock across statements (sealing, lib/audit/seal-audit-chain.ts). If `fn`
 * throws, the connection is closed rather than returned, with whatever it still held.
 */
export async function sqlSession<T>(db: DbTx, fn: (conn: SqlClient) => Promise<T>): Promise<T> {
  const entry = pools.get(db);
  if (!entry) throw new Error("sqlSession needs the app's database client, not a transaction client.");
  await acquireConnection(entry);
  let conn: PoolClient;
  try {
    conn = await entry.pool.connect();
  } catch (error) {
    entry.gate.release();
    throw error;
  }
  let failed = false;
  try {
    return await fn(clientOf(conn));
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    conn.release(failed || undefined);
    entry.gate.release();
  }
}

/**
 * Runs `fn` inside a savepoint of the transaction `tx`: if it throws, or returns `{ rollback: true }`,
 * everything it wrote is undone and the transaction goes on (a failed statement would otherwise
 * abort the whole transaction).
 */
export async function inSavepoint<T>(tx: SqlClient, fn: () => Promise<T>): Promise<T> {
  await tx.query(Prisma.sql`SAVEPOINT cs_savepoint`);
  try {
    const result = await fn();
    if (isRollback(result)) await tx.query(Prisma.sql`ROLLBACK TO SAVEPOINT cs_savepoint`);
    await tx.query(Prisma.sql`RELEASE SAVEPOINT cs_savepoint`);
    return result;
  } catch (error) {
    await tx.query(Prisma.sql`ROLLBACK TO SAVEPOINT cs_savepoint`);
    await tx.query(Prisma.sql`RELEASE SAVEPOINT cs_savepoint`);
    throw error;
  }
}

function isRollback(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { rollback?: unknown }).rollback === true;
}
