import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { decisionStillCountsSql } from "@/lib/db/statements/actions/approval-rules";

/**
 * Whether member `userId` is (still) asked to review revision `r` of action `a` (the aliases the
 * approval rules use): an active member of the action's tenant holding one of `roles` (an
 * escalation's role; null: the revision's eligible roles), not its requester, with no vote on that revision that still counts
 * (one whose vote stopped counting — a removed passkey — may decide it again). The reviewer-email
 * producer queues a notice by this rule, and the sender sends it only if it still holds
 * (enqueue-reviewer-emails.ts, read-still-asked-emails.ts): an offboarded member, or one who has
 * voted since, is not emailed. `OFFSET 0` keeps the EXISTS a probe per member (planned as a join, it
 * made the producer read every pending action; lib/db/index-use.test.ts).
 */
export function memberStillAskedSql(userId: Sql, roles: Sql): Sql {
  return Prisma.sql`(EXISTS (
      SELECT 1 FROM "Membership" am JOIN "User" au ON au.id = am."userId" AND au."disabledAt" IS NULL
      WHERE am."tenantId" = a."tenantId" AND am."userId" = ${userId}
        AND am.roles::text[] && COALESCE(${roles}, r."eligibleRoles"::text[]) OFFSET 0)
    AND ${userId} IS DISTINCT FROM a."requesterUserId"
    AND NOT EXISTS (SELECT 1 FROM "Decision" d WHERE d."revisionId" = r.id AND d."reviewerId" = ${userId}
      AND ${decisionStillCountsSql(Prisma.sql`r."payloadHash"`)}))`;
}
