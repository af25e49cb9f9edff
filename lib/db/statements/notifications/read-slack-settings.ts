import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { RiskLevel } from "@/lib/risk/risk-tag";

export type SlackSettings = {
  /** Null until an admin connects Slack; never the sealed secrets, only that they are set. */
  integration: { channel: string; openOnlyFrom: RiskLevel } | null;
  /** Members whose Slack user is linked. */
  linked: number;
  /** The latest messages Slack did not accept once their retries ended (at most five). */
  failing: Array<{ actionId: string; lastError: string | null }>;
};

/** What the admin's Slack page shows of a tenant's Slack connection, in one statement. */
export async function readSlackSettings(q: Queryable, input: { tenantId: string }): Promise<SlackSettings> {
  const [row] = await query<SlackSettings>(q, Prisma.sql`
    SELECT
      (SELECT json_build_object('channel', i.channel, 'openOnlyFrom', i."openOnlyFrom")
         FROM "SlackIntegration" i WHERE i."tenantId" = ${input.tenantId}::uuid) AS integration,
      (SELECT count(*)::int FROM "SlackUserLink" l WHERE l."tenantId" = ${input.tenantId}::uuid AND l."linkedAt" IS NOT NULL) AS linked,
      COALESCE((SELECT json_agg(json_build_object('actionId', f."actionId", 'lastError', f."lastError") ORDER BY f."updatedAt" DESC)
         FROM (SELECT m."actionId", m."lastError", m."updatedAt" FROM "SlackMessage" m
               WHERE m."tenantId" = ${input.tenantId}::uuid AND m.status = 'failed' ORDER BY m."updatedAt" DESC LIMIT 5) f), '[]') AS failing`);
  return row;
}
