import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * In a role change's transaction: locks the tenant's admin memberships and the target's in one
 * statement, in id order (two admins demoting each other cannot both remove the last admin), then
 * reads the target with its email; `actorIsAdmin` is judged under those locks. Null: no such
 * member. Lock order: docs/DESIGN.md, "Standing is judged when the act runs".
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
