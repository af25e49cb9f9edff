import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";

/**
 * Links the member whose live one-time code this is to the Slack user a verified request named,
 * with its `slack.user_linked` event, using up the code. Run it in a transaction: the code's row is
 * locked from its read, and that Slack user's link to another member is released first. Null: no
 * live code (unknown, used, expired or another tenant's).
 */
export async function redeemSlackLinkCode(
  q: Queryable,
  input: { tenantId: string; codeHash: string; slackTeamId: string; slackUserId: string; event: (userId: string, label: string) => AttestedAuditBody },
): Promise<{ userId: string } | null> {
  // The event's actor is the code's member: read the code (locked) first, in the same transaction.
  const [owner] = await query<{ userId: string; email: string }>(q, Prisma.sql`
    SELECT l."userId", u.email FROM "SlackUserLink" l JOIN "User" u ON u.id = l."userId"
    JOIN "Membership" m ON m."userId" = l."userId" AND m."tenantId" = l."tenantId"
    WHERE l."tenantId" = ${input.tenantId}::uuid AND l."codeHash" = ${input.codeHash} AND l."codeExpiresAt" > now()
    FOR UPDATE OF l`);
  if (!owner) return null;
  // A unique index is checked row by row: release the Slack user's previous link before the new one.
  await query(q, Prisma.sql`
    UPDATE "SlackUserLink" SET "slackTeamId" = NULL, "slackUserId" = NULL, "linkedAt" = NULL
    WHERE "tenantId" = ${input.tenantId}::uuid AND "slackTeamId" = ${input.slackTeamId} AND "slackUserId" = ${input.slackUserId}
      AND "userId" <> ${owner.userId}::uuid`);
  const rows = await query<{ userId: string }>(q, Prisma.sql`
    WITH linked AS (
      UPDATE "SlackUserLink" SET "slackTeamId" = ${input.slackTeamId}, "slackUserId" = ${input.slackUserId}, "linkedAt" = now(),
        "codeHash" = NULL, "codeExpiresAt" = NULL
      WHERE "tenantId" = ${input.tenantId}::uuid AND "userId" = ${owner.userId}::uuid AND "codeHash" = ${input.codeHash}
      RETURNING "userId"
    ),
    events AS (SELECT ${JSON.stringify(input.event(owner.userId, owner.email))}::jsonb AS event FROM linked),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT "userId" FROM linked`);
  return rows[0] ?? null;
}
