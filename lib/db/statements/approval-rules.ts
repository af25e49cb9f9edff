import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { DECIDING_ROLES } from "@/lib/auth/permissions";

/**
 * The rules of who may decide, as SQL fragments over an action `a` and its revision `r`: the one
 * definition the vote statement (cast-vote.ts) applies to the voter and the execution claim
 * (claim-approval.ts) applies to every recorded decision. Nothing here trusts a status column
 * or a count kept elsewhere.
 */

/**
 * Why member `voter` may not decide revision `r` of action `a`, or NULL when they may: a member of
 * the action's tenant (user not disabled) holding a role the revision names that also holds the
 * decide permission, and neither the requester, nor the creator of the API key that requested
 * it, nor the author of this revision.
 */
export function voterRefusalSql(voter: Sql): Sql {
  return Prisma.sql`CASE
    WHEN NOT EXISTS (
      SELECT 1 FROM "Membership" m JOIN "User" u ON u.id = m."userId" AND u."disabledAt" IS NULL
      WHERE m."tenantId" = a."tenantId" AND m."userId" = ${voter}
        AND m.roles && r."eligibleRoles" AND m.roles && ${[...DECIDING_ROLES]}::"Role"[]) THEN 'not_eligible'
    WHEN ${voter} = a."requesterUserId" THEN 'self_approval'
    WHEN ${voter} = (SELECT k."createdById" FROM "ApiKey" k WHERE k.id = a."requesterApiKeyId") THEN 'key_creator'
    WHEN ${voter} = r."createdByUserId" THEN 'own_edit'
  END`;
}

/**
 * Whether decision `d` on revision `r`, recorded as `verdict` for exactly `payloadHash`, still
 * counts: not void, cast by someone who may decide it now (voterRefusalSql), and — an approval of a
 * revision whose rule requires a passkey signature — signed with a passkey that has not been
 * removed since (removing a passkey withdraws the approvals it signed that have not run).
 */
export function decisionCountsSql(verdict: "approve" | "reject", payloadHash: Sql): Sql {
  const signed = verdict === "approve"
    ? Prisma.sql`AND ((r."policyDecision"->>'signature') IS DISTINCT FROM 'required' OR EXISTS (
        SELECT 1 FROM "DecisionSignature" ds JOIN "Passkey" p ON p.id = ds."passkeyId" WHERE ds."decisionId" = d.id AND p."removedAt" IS NULL))`
    : Prisma.empty;
  return Prisma.sql`(d.verdict = ${verdict}::"Verdict" AND NOT d.void AND d."payloadHash" = ${payloadHash}
      AND ${voterRefusalSql(Prisma.sql`d."reviewerId"`)} IS NULL ${signed})`;
}

/** Distinct members whose recorded `verdict` on revision `r`, for exactly `payloadHash`, still counts (decisionCountsSql). */
export function countedVotesSql(verdict: "approve" | "reject", payloadHash: Sql): Sql {
  return Prisma.sql`(SELECT count(DISTINCT d."reviewerId")::int FROM "Decision" d
    WHERE d."revisionId" = r.id AND ${decisionCountsSql(verdict, payloadHash)})`;
}
