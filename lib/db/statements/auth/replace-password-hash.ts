import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Sets an enabled user's password hash, conditioned on the hash just checked: of two changes at
 * once, the second finds it gone. Returns whether it changed.
 */
export async function replacePasswordHash(q: Queryable, input: { userId: string; checkedHash: string; newHash: string }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    UPDATE "User" SET "passwordHash" = ${input.newHash}
    WHERE id = ${input.userId}::uuid AND "passwordHash" = ${input.checkedHash} AND "disabledAt" IS NULL
    RETURNING id`);
  return rows.length === 1;
}
