import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { conflictOfInterestSql, decisionStillCountsSql, voterRefusalSql } from "@/lib/db/statements/actions/approval-rules";

/**
 * Whether member `userId` is (still) asked about revision `r` of action `a` (the aliases the
 * approval rules use), by the rule of who may decide it (approval-rules.ts): one the vote would
 * not refuse (voterRefusalSql) — or, for an escalation (`escalatedTo`: its role), an active
 * member holding that role with no conflict of interest (conflictOfInterestSql: not its requester,
 * nor the creator of the API key that requested it, nor the revision's author) — with no vote on
 * that revision that still counts. The reviewer-email producer queues a notice by this rule and
 * the send's claim re-checks it: no one is asked to review what the vote would refuse them.
 * `OFFSET 0` keeps the EXISTS a probe per member (planned as a join, it made the producer read
 * every pending action; lib/db/index-use.test.ts).
 */
export function memberStillAskedSql(userId: Sql, escalatedTo: Sql): Sql {
  return Prisma.sql`((CASE WHEN ${escalatedTo} IS NULL THEN ${voterRefusalSql(userId)} IS NULL
      ELSE EXISTS (
        SELECT 1 FROM "Membership" am JOIN "User" au ON au.id = am."userId" AND au."disabledAt" IS NULL
        WHERE am."tenantId" = a."tenantId" AND am."userId" = ${userId} AND am.roles::text[] && ${escalatedTo} OFFSET 0)
        AND ${conflictOfInterestSql(userId)} IS NULL END)
    AND NOT EXISTS (SELECT 1 FROM "Decision" d WHERE d."revisionId" = r.id AND d."reviewerId" = ${userId}
      AND ${decisionStillCountsSql(Prisma.sql`r."payloadHash"`)}))`;
}
