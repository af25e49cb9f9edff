import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Makes an action's Slack message due for an update now (after a vote from it was refused as stale). */
export async function refreshSlackMessage(q: Queryable, input: { tenantId: string; actionId: string }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "SlackMessage" SET "wantedSeq" = "wantedSeq" + 1, status = 'pending', attempts = 0, "nextAttemptAt" = now(), "updatedAt" = now(),
      "giveUpAt" = GREATEST("giveUpAt", now() + interval '1 hour')
    WHERE "actionId" = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid`);
}
