import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { DECIDING_ROLES } from "@/lib/roles/permissions";

/**
 * The rules of who may decide, as SQL fragments over an action `a` and its revision `r`: the one
 * definition the vote statement (cast-vote.ts) applies to the voter and the execution claim
 * (claim-approval.ts) applies to every recorded decision and to a member who executes. Nothing
 * here trusts a status column or a count kept elsewhere.
 */

/**
 * Whether user `userId` may decide in tenant `tenantId` now: a member there (user not disabled)
 * holding a role with the decide permission — and, when `among` is given, one of those roles too.
 * The rule for a voter (voterRefusalSql) and for a member who executes an approval
 * (claim-approval.ts). With `lock`, the membership row is share-locked until the transaction ends:
 * a role change locks it FOR UPDATE (lock-membership-for-roles.ts), so the act and the change are
 * ordered — an act that commits first is seen by the change's reopening of lost approvals
 * (reopen-lost-approvals.ts), and one that waits sees the change.
 */
export function mayDecideNowSql(tenantId: Sql, userId: Sql, among: Sql | null = null, options: { lock?: boolean } = {}): Sql {
  return Prisma.sql`EXISTS (
    SELECT 1 FROM "Membership" decider_m JOIN "User" decider_u ON decider_u.id = decider_m."userId" AND decider_u."disabledAt" IS NULL
    WHERE decider_m."tenantId" = ${tenantId} AND decider_m."userId" = ${userId}
      AND decider_m.roles && ${[...DECIDING_ROLES]}::"Role"[]${among ? Prisma.sql` AND decider_m.roles && ${among}` : Prisma.empty}
    ${options.lock ? Prisma.sql`FOR SHARE OF decider_m` : Prisma.empty})`;
}

/**
 * Why member `voter` may not decide revision `r` of action `a` whatever their roles, or NULL: the
 * requester, the creator of the API key that requested it, the author of this revision. Part of
 * voterRefusalSql, and the whole of it for an escalation's role (reviewer-ask-rules.ts).
 */
export function conflictOfInterestSql(voter: Sql): Sql {
  return Prisma.sql`CASE
    WHEN ${voter} = a."requesterUserId" THEN 'self_approval'
    WHEN ${voter} = (SELECT k."createdById" FROM "ApiKey" k WHERE k.id = a."requesterApiKeyId") THEN 'key_creator'
    WHEN ${voter} = r."createdByUserId" THEN 'own_edit'
  END`;
}

/**
 * Why member `voter` may not decide revision `r` of action `a`, or NULL when they may: one who may
 * decide in the action's tenant now holding a role the revision names, and neither the requester,
 * nor the creator of the API key that requested it, nor the author of this revision. `lock`: as
 * for mayDecideNowSql (the vote statement locks its voter's membership). The reviewers asked to
 * review it are those it finds none for (reviewer-ask-rules.ts).
 */
export function voterRefusalSql(voter: Sql, options: { lock?: boolean } = {}): Sql {
  return Prisma.sql`CASE
    WHEN NOT ${mayDecideNowSql(Prisma.sql`a."tenantId"`, voter, Prisma.sql`r."eligibleRoles"`, options)} THEN 'not_eligible'
    ELSE ${conflictOfInterestSql(voter)}
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

/**
 * Whether decision `d` on revision `r` still counts, whichever its verdict (decisionCountsSql): the
 * console shows it as counting, and a member who has one may not vote on the revision again. One
 * that stopped counting (its signing passkey removed, say) leaves its member free to decide again.
 */
export function decisionStillCountsSql(payloadHash: Sql): Sql {
  return Prisma.sql`(${decisionCountsSql("approve", payloadHash)} OR ${decisionCountsSql("reject", payloadHash)})`;
}

/** Distinct members whose recorded `verdict` on revision `r`, for exactly `payloadHash`, still counts (decisionCountsSql). */
export function countedVotesSql(verdict: "approve" | "reject", payloadHash: Sql): Sql {
  return Prisma.sql`(SELECT count(DISTINCT d."reviewerId")::int FROM "Decision" d
    WHERE d."revisionId" = r.id AND ${decisionCountsSql(verdict, payloadHash)})`;
}

/** The distinct members whose counting approvals of revision `r` also bind the grant terms `termsHash`. */
export function countedGrantVotesSql(payloadHash: Sql, termsHash: Sql): Sql {
  return Prisma.sql`(SELECT count(DISTINCT d."reviewerId")::int FROM "Decision" d
    WHERE d."revisionId" = r.id AND d."grantTermsHash" = ${termsHash} AND ${decisionCountsSql("approve", payloadHash)})`;
}

/**
 * Whether the approvals that made grant `g` still make its quorum now: those of its source
 * revision that bind its terms, by members who may still decide it (voterRefusalSql) and, for a
 * signed grant, whose signing passkey was not removed. A later revision (the source action re-queued
 * after it ran into changed state) does not void them: they approved the grant's terms.
 */
export function grantApprovalsCountSql(grant: Sql): Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "ActionRevision" r JOIN "Action" a ON a.id = r."actionId"
    WHERE r."actionId" = ${grant}."sourceActionId" AND r.revision = ${grant}."sourceRevision"
      AND (SELECT count(DISTINCT d."reviewerId") FROM "Decision" d
        WHERE d."revisionId" = r.id AND d.verdict = 'approve' AND d."grantTermsHash" = ${grant}."termsHash"
          AND ${voterRefusalSql(Prisma.sql`d."reviewerId"`)} IS NULL
          AND (NOT ${grant}.signed OR EXISTS (SELECT 1 FROM "DecisionSignature" ds JOIN "Passkey" p ON p.id = ds."passkeyId"
            WHERE ds."decisionId" = d.id AND p."removedAt" IS NULL))) >= r.quorum)`;
}

/**
 * How many members could decide revision `r` of action `a` now (voterRefusalSql would refuse none
 * of them): those an edit must leave at least the revision's quorum of, or it strands the action
 * (write-next-revision.ts). `r` needs only "eligibleRoles" and "createdByUserId".
 */
export function eligibleReviewerCountSql(): Sql {
  return Prisma.sql`(SELECT count(*)::int FROM "Membership" reviewer_m
    WHERE reviewer_m."tenantId" = a."tenantId"
      AND ${mayDecideNowSql(Prisma.sql`a."tenantId"`, Prisma.sql`reviewer_m."userId"`, Prisma.sql`r."eligibleRoles"`)}
      AND ${conflictOfInterestSql(Prisma.sql`reviewer_m."userId"`)} IS NULL)`;
}
