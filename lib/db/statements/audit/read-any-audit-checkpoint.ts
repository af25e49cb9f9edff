import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The newest signed checkpoint of any tenant (its note), or null on a fresh database. */
export async function readAnyAuditCheckpoint(q: Queryable): Promise<string | null> {
  const [row] = await query<{ note: string }>(q, Prisma.sql`SELECT note FROM "AuditCheckpoint" ORDER BY id DESC LIMIT 1`);
  return row?.note ?? null;
}
