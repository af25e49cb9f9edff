import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { rolesWith } from "@/lib/roles/permissions";

/**
 * Whether member `userId` may still have agents act for them in tenant `tenantId`: a member there
 * (user not disabled) holding a role with the `tasks:use` permission. The counterpart, for an
 * action a member requested, of an API key not being revoked (api-key-rules.ts): the execution
 * claim (claim-approval.ts) applies it, so an approval is not used for someone who has left.
 */
export function requesterMayActSql(tenantId: Sql, userId: Sql): Sql {
  return Prisma.sql`EXISTS (
    SELECT 1 FROM "Membership" requester_m JOIN "User" requester_u ON requester_u.id = requester_m."userId" AND requester_u."disabledAt" IS NULL
    WHERE requester_m."tenantId" = ${tenantId} AND requester_m."userId" = ${userId}
      AND requester_m.roles && ${rolesWith("tasks:use")}::"Role"[])`;
}
