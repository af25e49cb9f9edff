import type { Db } from "@/lib/db/client";
import type { Member } from "@/lib/approvals/actors";

/** The member a Slack user is linked to here (start-slack-link.ts), with their roles; null when unlinked or gone. */
export async function slackMember(db: Db, input: { tenantId: string; slackTeamId: string; slackUserId: string }): Promise<Member | null> {
  const link = await db.slackUserLink.findFirst({
    where: { tenantId: input.tenantId, slackTeamId: input.slackTeamId, slackUserId: input.slackUserId, linkedAt: { not: null } },
    select: { userId: true },
  });
  if (!link) return null;
  const membership = await db.membership.findFirst({
    where: { tenantId: input.tenantId, userId: link.userId, user: { disabledAt: null } },
    select: { roles: true, user: { select: { email: true } } },
  });
  if (!membership) return null;
  // The vote holds this link until it commits (lock-acting-membership.ts): one unlinked meanwhile refuses it.
  return { userId: link.userId, label: membership.user.email, roles: membership.roles, sessionId: null, slackUser: { teamId: input.slackTeamId, userId: input.slackUserId } };
}
