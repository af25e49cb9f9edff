import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

export type SlackConnection = {
  /** Null until an admin connects Slack; never the sealed secrets, only that they are set. */
  integration: { channel: string; openOnlyFrom: RiskLevel } | null;
  /** Members whose Slack user is linked. */
  linked: number;
};

/** What the admin's Slack page shows of a tenant's Slack connection, in one statement. */
export async function readSlackConnection(q: Queryable, input: { tenantId: string }): Promise<SlackConnection> {
  const [row] = await query<SlackConnection>(q, Prisma.sql`
    SELECT
      (SELECT json_build_object('channel', i.channel, 'openOnlyFrom', i."openOnlyFrom")
         FROM "SlackIntegration" i WHERE i."tenantId" = ${input.tenantId}::uuid) AS integration,
      (SELECT count(*)::int FROM "SlackUserLink" l WHERE l."tenantId" = ${input.tenantId}::uuid AND l."linkedAt" IS NOT NULL) AS linked`);
  return row;
}
