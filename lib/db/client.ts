import os from "node:os";
import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { registerPool, runBeforeDisconnect } from "@/lib/db/pool-registry";
import { processEnv, readEnv, type EnvSource } from "@/lib/env";

export type Db = PrismaClient;
/** The handle domain functions take: the app's client (a transaction is `sqlTransaction`, lib/db/sql.ts; tests may pass a Prisma one). */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

/** Connections per process for a PostgreSQL server elsewhere, unless DATABASE_POOL_SIZE says otherwise. */
const DEFAULT_POOL_SIZE = 20;

/**
 * Connections per process for the bundled PostgreSQL, which shares this machine's cores: two per
 * core and one more. More only queue inside PostgreSQL (on 2 cores a pool of 20 gave 5's throughput
 * and stretched an approval's way to execution several-fold; docs/BENCHMARKS.md).
 */
export function embeddedPoolSize(): number {
  return 2 * os.availableParallelism() + 1;
}

/** DATABASE_POOL_SIZE, checked; undefined when unset. */
export function poolSizeFromEnv(source: EnvSource = processEnv()): number | undefined {
  return readEnv("DATABASE_POOL_SIZE", source);
}

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  // One pool, shared by Prisma and the hot paths that use pg directly (lib/db/sql.ts).
  const pool = new Pool({ connectionString, max: options.max ?? poolSizeFromEnv() ?? DEFAULT_POOL_SIZE });
  const adapter = new PrismaPg(pool);
  // Secret columns are left out of default selects; code that needs them asks by name.
  const db: Db = new PrismaClient({ adapter, omit: { user: { passwordHash: true }, apiKey: { secretHash: true } } });
  registerPool(db, pool);
  // Prisma does not end a pool it was handed; $disconnect ends it too.
  const disconnect = db.$disconnect.bind(db);
  let disconnecting = false;
  db.$disconnect = async () => {
    disconnecting = true;
    await runBeforeDisconnect(db);
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  // Prisma listens for idle-connection errors only once it has connected; until then, this does.
  // Once disconnecting, they are expected: pg ends idle connections without waiting for them to
  // close, so a server stopped right after $disconnect still terminates a few.
  pool.on("error", (error) => {
    if (!disconnecting) console.error(`[countersign] an idle database connection failed: ${error.message}`);
  });
  return db;
}

const globalForDb = globalThis as unknown as { countersignDb?: Db };

/** The app's one client, created lazily from DATABASE_URL (set by the start command). */
export function getDb(): Db {
  if (!globalForDb.countersignDb) {
    const url = readEnv("DATABASE_URL");
    if (!url) throw new Error("DATABASE_URL is not set: start the console with `npm start`.");
    globalForDb.countersignDb = createDb(url);
  }
  return globalForDb.countersignDb;
}
