import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** A new session row, expiring `maxAgeSeconds` from now by the database clock; returns its id. */
export async function insertSession(
  q: Queryable,
  input: { userId: string; method: string; clientAddress: string | null; userAgent: string | null; maxAgeSeconds: number },
): Promise<string> {
  const [row] = await query<{ id: string }>(q, Prisma.sql`
    INSERT INTO "Session" ("userId", method, "expiresAt", "clientAddress", "userAgent")
    VALUES (${input.userId}::uuid, ${input.method}, now() + make_interval(secs => ${input.maxAgeSeconds}),
      ${input.clientAddress}, ${input.userAgent})
    RETURNING id::text AS id`);
  return row.id;
}
