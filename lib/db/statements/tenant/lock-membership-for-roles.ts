import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Inside a role change's transaction: locks the tenant's admin memberships and the target's, in one
 * statement in id order — the order of every transaction that locks several memberships (two admins
 * changing each other's roles at once cannot both remove the last admin, and an execution that
 * holds its executor's and its requester's, lock-acting-membership.ts, never waits for one this
 * holds while holding one this waits for) — then reads the target with its user's email. `actorIsAdmin`: whether the
 * one who asks is an admin under those locks (admin-rules.ts, the rule every admin act applies).
 * Memberships before actions: the change locks the member's actions only after this, the order a
 * vote and an execution keep too (lock-acting-membership.ts). Null: no such member.
 */
export async function lockMembershipForRoles(
  tx: Queryable,
  input: { tenantId: string; membershipId: string; actorUserId: string | null },
): Promise<{ member: { id: string; userId: string; roles: Role[]; email: string }; adminIds: string[]; actorIsAdmin: boolean } | null> {
  const locked = await query<{ id: string; admin: boolean }>(tx, Prisma.sql`
    SELECT id, 'admin' = ANY(roles) AS admin FROM "Membership"
    WHERE "tenantId" = ${input.tenantId}::uuid AND ('admin' = ANY(roles) OR id = ${input.membershipId}::uuid)
    ORDER BY id FOR UPDATE`);
  const [member] = await query<{ id: string; userId: string; roles: Role[]; email: string; actorIsAdmin: boolean }>(tx, Prisma.sql`
    SELECT m.id, m."userId"::text AS "userId", m.roles::text[] AS roles, u.email,
      ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.actorUserId}::uuid`)} AS "actorIsAdmin"
    FROM "Membership" m JOIN "User" u ON u.id = m."userId"
    WHERE m.id = ${input.membershipId}::uuid AND m."tenantId" = ${input.tenantId}::uuid FOR UPDATE OF m`);
  if (!member) return null;
  const { actorIsAdmin, ...target } = member;
  return { member: target, adminIds: locked.filter((m) => m.admin).map((m) => m.id), actorIsAdmin };
}
