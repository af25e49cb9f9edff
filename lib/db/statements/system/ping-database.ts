import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The cheapest round trip to the database: resolves once it answered, throws if it did not. */
export async function pingDatabase(q: Queryable): Promise<void> {
  await query(q, Prisma.sql`SELECT 1 AS ok`);
}
