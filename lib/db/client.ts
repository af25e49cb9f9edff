import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { registerPool } from "@/lib/db/sql";

export type Db = PrismaClient;
/** The handle domain functions take: the client, or a transaction client from `db.$transaction`. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  // One pool, shared by Prisma and the hot paths that use pg directly (lib/db/sql.ts).
  const pool = new Pool({ connectionString, max: options.max ?? 20 });
  const adapter = new PrismaPg(pool);
  // Secret columns are left out of default selects; code that needs them asks by name.
  const db: Db = new PrismaClient({ adapter, omit: { user: { passwordHash: true }, apiKey: { secretHash: true } } });
  registerPool(db, pool);
  // Prisma does not end a pool it was handed; $disconnect ends it too.
  const disconnect = db.$disconnect.bind(db);
  db.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  // Prisma listens for idle-connection errors only once it has connected; until then, this does.
  pool.on("error", (error) => console.error(`[countersign] an idle database connection failed: ${error.message}`));
  return db;
}

const globalForDb = globalThis as unknown as { countersignDb?: Db };

/** The app's one client, created lazily from DATABASE_URL (set by the start command). */
export function getDb(): Db {
  if (!globalForDb.countersignDb) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the console with `npm start`.");
    globalForDb.countersignDb = createDb(url);
  }
  return globalForDb.countersignDb;
}
