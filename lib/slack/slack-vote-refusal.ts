import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import type { LockedAction } from "@/lib/db/statements/actions/lock-action";
import type { RiskLevel } from "@/lib/risk/risk-tag";
import { openOnlyReason, slackShowsWhole } from "@/lib/slack/slack-message";

/**
 * Why a vote from Slack may not count for this revision (locked by the vote), or null: the rule
 * the message's buttons follow (openOnlyReason) — the message cannot show the whole payload, or
 * its risk is at or above the tenant's Slack threshold now (read unlocked: a vote does not hold up the
 * Slack outbox, which locks the settings' row to move its cursor). Judged in the vote's transaction, on
 * the revision the vote binds to (the interaction's early check only spares a dialog); the policy's
 * signature and reading-time rules are the vote statement's own (cast-vote.ts).
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
