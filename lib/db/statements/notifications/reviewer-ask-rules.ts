import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { conflictOfInterestSql, decisionStillCountsSql, voterRefusalSql } from "@/lib/db/statements/actions/approval-rules";

/**
 * Whether member `userId` is (still) asked about revision `r` of action `a`: one the vote would
 * not refuse (voterRefusalSql) or, for an escalation to a role (`escalatedTo`), an active holder
 * of it with no conflict of interest (conflictOfInterestSql), with no vote on that revision that
 * still counts. Queued and re-checked at the send by this rule (docs/DESIGN.md, "One outbox for
 * every notification"). `OFFSET 0` keeps the EXISTS a probe per member (lib/db/index-use.test.ts).
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
