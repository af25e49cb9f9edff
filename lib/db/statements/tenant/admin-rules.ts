import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether user `userId` is an admin of `tenantId` now (membership with the admin role, user not
 * disabled), its membership row share-locked: the rule every statement that acts for an admin
 * applies to the admin, beside the request boundary's check — a role change
 * (lock-membership-for-roles.ts), a policy save, an API key's creation, revocation and pause, the
 * tenant's stop button, an MCP server's registration, listing, secrets, removal and tool approval,
 * a webhook endpoint's registration, rotation, removal and redelivery, and the Slack app's
 * settings. A role change locks the admin memberships FOR UPDATE (lock-membership-for-roles.ts),
 * so a demotion and the act are ordered, never interleaved.
 */
export function adminNowSql(tenantId: Sql, userId: Sql): Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "Membership" admin_m JOIN "User" admin_u ON admin_u.id = admin_m."userId" AND admin_u."disabledAt" IS NULL
    WHERE admin_m."tenantId" = ${tenantId} AND admin_m."userId" = ${userId} AND 'admin' = ANY(admin_m.roles) FOR SHARE OF admin_m)`;
}
