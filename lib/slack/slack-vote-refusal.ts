import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import type { LockedAction } from "@/lib/db/statements/actions/lock-action";
import type { RiskLevel } from "@/lib/risk/risk-tag";
import { openOnlyReason, slackShowsWhole } from "@/lib/slack/slack-message";

/**
 * Why a vote from Slack may not count for this revision, or null: the message's rule (openOnlyReason),
 * judged in the vote's transaction (docs/DESIGN.md, "A vote from Slack counts only for what Slack
 * showed"). The threshold is read unlocked: a vote must not hold up the Slack outbox.
 */
export async function slackVoteRefusal(tx: SqlClient, input: { tenantId: string; action: Pick<LockedAction, "kind" | "args" | "riskLevel"> }): Promise<string | null> {
  const [integration] = await query<{ openOnlyFrom: RiskLevel }>(tx, Prisma.sql`
    SELECT "openOnlyFrom"::text AS "openOnlyFrom" FROM "SlackIntegration" WHERE "tenantId" = ${input.tenantId}::uuid`);
  if (!integration) return "Slack is not connected to this organisation.";
  const { action } = input;
  return openOnlyReason(
    { signatureRequired: false, minViewTime: false, argumentsShownWhole: slackShowsWhole(action.kind, action.args), riskLevel: action.riskLevel },
    integration.openOnlyFrom,
  );
}
