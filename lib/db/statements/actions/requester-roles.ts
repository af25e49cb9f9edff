import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The roles an action's requesting member holds now, as a later revision's policy sees them (the
 * first revision saw theirs when it was proposed); null when they are no longer an active member.
 * Not locked — the action's lock is held, and memberships come before actions — so the revision's
 * write checks them again (requesterRolesCurrentSql).
 */
export async function readRequesterRoles(q: Queryable, input: { tenantId: string; userId: string }): Promise<string[] | null> {
  const [row] = await query<{ roles: string[] }>(q, Prisma.sql`
    SELECT m.roles::text[] AS roles FROM "Membership" m JOIN "User" u ON u.id = m."userId" AND u."disabledAt" IS NULL
    WHERE m."tenantId" = ${input.tenantId}::uuid AND m."userId" = ${input.userId}::uuid`);
  return row?.roles ?? null;
}

/**
 * Whether the requesting member `userId` (null: the requester is an API key, nothing to check)
 * holds exactly `roles` now (null: is still not an active member): the roles a proposal or a
 * revision was assessed with are still theirs.
 */
export function requesterRolesCurrentSql(tenantId: Prisma.Sql, userId: Prisma.Sql, roles: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(${userId} IS NULL OR (
    SELECT CASE WHEN ${roles} IS NULL THEN count(*) = 0 ELSE bool_or(m.roles::text[] @> ${roles} AND m.roles::text[] <@ ${roles}) IS TRUE END
    FROM "Membership" m JOIN "User" u ON u.id = m."userId" AND u."disabledAt" IS NULL
    WHERE m."tenantId" = ${tenantId} AND m."userId" = ${userId}))`;
}
