import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether user `userId` is an admin of `tenantId` now (admin role, user not disabled), its
 * membership row share-locked: the rule every admin act applies in the statement that writes
 * (docs/DESIGN.md, "Standing is judged when the act runs").
 */
export function adminNowSql(tenantId: Sql, userId: Sql): Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "Membership" admin_m JOIN "User" admin_u ON admin_u.id = admin_m."userId" AND admin_u."disabledAt" IS NULL
    WHERE admin_m."tenantId" = ${tenantId} AND admin_m."userId" = ${userId} AND 'admin' = ANY(admin_m.roles) FOR SHARE OF admin_m)`;
}
