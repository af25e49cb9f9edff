import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Inside a role change's transaction: locks the tenant's admin memberships (in id order, so two
 * admins changing each other's roles at once take them in the same order and cannot both remove
 * the last admin), then the target membership with its user's email. `adminUserIds`: who is an
 * admin under those locks (the one who asks must still be). Null: no such member.
 */
export async function lockMembershipForRoles(
  tx: Queryable,
  input: { tenantId: string; membershipId: string },
): Promise<{ member: { id: string; userId: string; roles: Role[]; email: string }; adminIds: string[]; adminUserIds: string[] } | null> {
  const admins = await query<{ id: string; userId: string }>(tx, Prisma.sql`
    SELECT id, "userId"::text AS "userId" FROM "Membership" WHERE "tenantId" = ${input.tenantId}::uuid AND 'admin' = ANY(roles) ORDER BY id FOR UPDATE`);
  const [member] = await query<{ id: string; userId: string; roles: Role[]; email: string }>(tx, Prisma.sql`
    SELECT m.id, m."userId"::text AS "userId", m.roles::text[] AS roles, u.email FROM "Membership" m JOIN "User" u ON u.id = m."userId"
    WHERE m.id = ${input.membershipId}::uuid AND m."tenantId" = ${input.tenantId}::uuid FOR UPDATE OF m`);
  return member ? { member, adminIds: admins.map((a) => a.id), adminUserIds: admins.map((a) => a.userId) } : null;
}
