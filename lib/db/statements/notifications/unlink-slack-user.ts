import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Removes user `userId`'s Slack links in every tenant and any unsent link code: a link is a
 * standing credential, so what ends the member's sessions ends it too. A vote holding a link
 * (lock-acting-membership.ts) is waited for. Returns the tenants where something was removed.
 */
export async function unlinkSlackUser(q: Queryable, input: { userId: string }): Promise<string[]> {
  const rows = await query<{ tenantId: string }>(q, Prisma.sql`
    UPDATE "SlackUserLink" SET "slackTeamId" = NULL, "slackUserId" = NULL, "linkedAt" = NULL, "codeHash" = NULL, "codeExpiresAt" = NULL
    WHERE "userId" = ${input.userId}::uuid AND ("linkedAt" IS NOT NULL OR "codeHash" IS NOT NULL)
    RETURNING "tenantId"`);
  return rows.map((r) => r.tenantId);
}
