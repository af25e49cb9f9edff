import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The user with this email, created with `name` and `passwordHash` when there is none (an existing one is left as it is). */
export async function ensureUser(q: Queryable, input: { email: string; name: string; passwordHash: string }): Promise<{ id: string }> {
  const [row] = await query<{ id: string }>(q, Prisma.sql`
    WITH created AS (
      INSERT INTO "User" (id, email, name, "passwordHash") VALUES (gen_random_uuid(), ${input.email}, ${input.name}, ${input.passwordHash})
      ON CONFLICT (email) DO NOTHING
      RETURNING id
    )
    SELECT id FROM created UNION ALL SELECT id FROM "User" WHERE email = ${input.email} AND NOT EXISTS (SELECT 1 FROM created)`);
  return row;
}
