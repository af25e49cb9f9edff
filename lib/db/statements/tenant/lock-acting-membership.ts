import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type SqlClient } from "@/lib/db/sql";
import { sessionRowIsLiveSql } from "@/lib/db/statements/auth/session-rules";
import { agentsPauseGateSql } from "@/lib/db/statements/tenant/agent-pause-rules";

/**
 * Share-locks member `userId`'s membership of `tenantId` (if there is one) until the transaction
 * ends. The lock order of every transaction that locks a membership and another row: the
 * membership first. A role change locks the admin memberships and its target's, then that member's
 * actions (lock-membership-for-roles.ts, reopen-lost-approvals.ts); a vote, an edit and a re-read
 * of state call this (an execution, lockExecutionStanding below) before they lock the action (a signed vote, then its
 * passkey: a passkey's removal locks it before the actions it signed), and an admin's act that locks what it changes in a statement of
 * its own (an MCP server's listing, a webhook secret's rotation) before that. So none holds a row
 * while it waits for a membership a role change holds: a vote or an execution and a role change
 * would wait for each other (PostgreSQL fails one as a deadlock), and a listing could close such a
 * circle through a third transaction (a vote waiting for the MCP tool's row the listing holds).
 * Whether the member may act is judged later, on this locked row (approval-rules.ts, admin-rules.ts).
 *
 * `sessionId`: the console session the member acts in (null for an act that comes another way — a
 * linked Slack account, an admin's act judged by admin-rules.ts alone). Its row is share-locked in
 * the same statement while it is live (session-rules.ts), so the act holds its session until it
 * commits: a sign-out, a password change or a role removal that ends it under way is waited for and
 * the act refused (`sessionLive` false), and one that comes later waits for the act. The statement
 * locks the membership, then the session (PostgreSQL evaluates the select list in order): the
 * order of a role change, which locks the membership and then ends the member's sessions.
 *
 * `slackUser`: the Slack user a vote from Slack comes from. Its link to this member is share-locked
 * the same way while it stands (`slackLinkLive`): a password change that unlinks it, or the Slack
 * user's link to another member, is waited for and the vote refused, or waits for the vote.
 */
export async function lockActingMembership(
  tx: SqlClient,
  input: { tenantId: string; userId: string; sessionId: string | null; slackUser?: { teamId: string; userId: string } | null },
): Promise<{ sessionLive: boolean; slackLinkLive: boolean }> {
  const [row] = await query<{ sessionLive: boolean; slackLinkLive: boolean }>(tx, Prisma.sql`
    SELECT (SELECT count(*) FROM (
        SELECT 1 FROM "Membership" m WHERE m."tenantId" = ${input.tenantId}::uuid AND m."userId" = ${input.userId}::uuid FOR SHARE OF m
      ) locked) AS memberships,
      ${liveSessionLockedSql(input.userId, input.sessionId)} AS "sessionLive",
      ${liveSlackLinkLockedSql(input.tenantId, input.userId, input.slackUser ?? null)} AS "slackLinkLive"`);
  return { sessionLive: row.sessionLive, slackLinkLive: row.slackLinkLive };
}

/** True when `slackUser` is null, or is linked to member `userId` of the tenant now, which it share-locks. */
function liveSlackLinkLockedSql(tenantId: string, userId: string, slackUser: { teamId: string; userId: string } | null): Sql {
  if (!slackUser) return Prisma.sql`true`;
  return Prisma.sql`EXISTS (
    SELECT 1 FROM "SlackUserLink" acting_l
    WHERE acting_l."tenantId" = ${tenantId}::uuid AND acting_l."userId" = ${userId}::uuid AND acting_l."linkedAt" IS NOT NULL
      AND acting_l."slackTeamId" = ${slackUser.teamId} AND acting_l."slackUserId" = ${slackUser.userId}
    FOR SHARE OF acting_l)`;
}

/** True when `sessionId` is null, or names a live session of `userId`, which it share-locks (see lockActingMembership). */
function liveSessionLockedSql(userId: string | null, sessionId: string | null): Sql {
  return Prisma.sql`(${sessionId}::uuid IS NULL OR EXISTS (
    SELECT 1 FROM "Session" acting_s
    WHERE acting_s.id = ${sessionId}::uuid AND acting_s."userId" = ${userId}::uuid AND ${sessionRowIsLiveSql(Prisma.sql`acting_s`)}
    FOR SHARE OF acting_s))`;
}

/**
 * What an execution is judged on besides its action, held from its first statement to its commit
 * (the claim judges them, claim-approval.ts): share-locks, in id order, the executing member's
 * membership (`userId`, null when the requester runs its own action; with their session,
 * `sessionId`, as lockActingMembership does) and the membership of the member who requested action
 * `actionId` (an action's requester never changes, so it is read unlocked here); and takes the
 * tenant's stop-button gate shared (agentsPauseGateSql). All before the execution locks the action
 * — the lock order above: taking the requester's membership after the action would close a circle
 * with a role change, which holds every admin's membership while it locks the actions its target
 * voted on. A role change or a pause that commits first is seen; one under way is waited for; one
 * that comes later waits for the execution.
 */
export async function lockExecutionStanding(
  tx: SqlClient,
  input: { tenantId: string; userId: string | null; sessionId: string | null; actionId: string },
): Promise<{ sessionLive: boolean }> {
  const [row] = await query<{ sessionLive: boolean }>(tx, Prisma.sql`
    SELECT (SELECT count(*) FROM (
        SELECT 1 FROM "Membership" m
        WHERE m."tenantId" = ${input.tenantId}::uuid
          AND (m."userId" = ${input.userId}::uuid
            OR m."userId" = (SELECT a."requesterUserId" FROM "Action" a WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid))
        ORDER BY m.id FOR SHARE OF m
      ) locked) AS memberships,
      ${agentsPauseGateSql(Prisma.sql`${input.tenantId}::uuid`, "shared")} AS gate,
      ${liveSessionLockedSql(input.userId, input.sessionId)} AS "sessionLive"`);
  return { sessionLive: row.sessionLive };
}
