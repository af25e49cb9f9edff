import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/** Sets the roles of membership `membershipId` of `tenantId`; the role change has locked its row (lock-membership-for-roles.ts). */
export async function updateMembershipRoles(q: Queryable, input: { tenantId: string; membershipId: string; roles: Role[] }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "Membership" SET roles = ${input.roles}::"Role"[] WHERE id = ${input.membershipId}::uuid AND "tenantId" = ${input.tenantId}::uuid`);
}
