import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** A session's sign-in method and its user, with the tenants the user is a member of (id order); null when there is no such session. */
export async function readSessionOwner(
  q: Queryable,
  input: { sessionId: string },
): Promise<{ method: string; userId: string; email: string; tenantIds: string[] } | null> {
  const [row] = await query<{ method: string; userId: string; email: string; tenantIds: string[] }>(q, Prisma.sql`
    SELECT s.method, u.id AS "userId", u.email,
      ARRAY(SELECT m."tenantId"::text FROM "Membership" m WHERE m."userId" = u.id ORDER BY m."tenantId") AS "tenantIds"
    FROM "Session" s JOIN "User" u ON u.id = s."userId"
    WHERE s.id = ${input.sessionId}::uuid`);
  return row ?? null;
}
