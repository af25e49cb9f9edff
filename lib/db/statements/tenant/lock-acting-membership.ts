import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import { query, type SqlClient } from "@/lib/db/sql";
import { sessionRowIsLiveSql } from "@/lib/db/statements/auth/session-rules";
import { agentsPauseGateSql } from "@/lib/db/statements/tenant/agent-pause-rules";

/**
 * Share-locks member `userId`'s membership of `tenantId` (if any), then, while they are live, the
 * session the act comes in (`sessionId`; null for a Slack vote or an admin act) and a Slack vote's
 * link (`slackUser`), until the transaction ends; approval-rules.ts and admin-rules.ts judge the
 * locked rows. Call it before locking anything else. Lock order: docs/DESIGN.md, "Standing is
 * judged when the act runs".
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
 * An execution's standing, held from its first statement to its commit and judged by the claim:
 * share-locks the executor's membership (and session) and the requester's, in id order, and takes
 * the stop button's gate shared, before the action is locked (the lock order: docs/DESIGN.md,
 * "Standing is judged when the act runs"). The requester never changes: read unlocked.
 */
export async function lockExecutionStanding(
  tx: SqlClient,
  input: {
    tenantId: string; userId: string | null; sessionId: string | null; actionId: string;
    /** The requester of an action this transaction writes itself (not in the table yet for this statement). */
    requesterUserId?: string | null;
  },
): Promise<{ sessionLive: boolean }> {
  const [row] = await query<{ sessionLive: boolean }>(tx, Prisma.sql`
    SELECT (SELECT count(*) FROM (
        SELECT 1 FROM "Membership" m
        WHERE m."tenantId" = ${input.tenantId}::uuid
          AND (m."userId" = ${input.userId}::uuid OR m."userId" = ${input.requesterUserId ?? null}::uuid
            OR m."userId" = (SELECT a."requesterUserId" FROM "Action" a WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid))
        ORDER BY m.id FOR SHARE OF m
      ) locked) AS memberships,
      ${agentsPauseGateSql(Prisma.sql`${input.tenantId}::uuid`, "shared")} AS gate,
      ${liveSessionLockedSql(input.userId, input.sessionId)} AS "sessionLive"`);
  return { sessionLive: row.sessionLive };
}
