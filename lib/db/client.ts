import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";

export type Db = PrismaClient;
/** The handle domain functions take: the client, or a transaction client from `db.$transaction`. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString, max: options.max ?? 20 });
  // Secret columns are left out of default selects; code that needs them asks by name.
  return new PrismaClient({ adapter, omit: { user: { passwordHash: true }, apiKey: { secretHash: true } } });
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
