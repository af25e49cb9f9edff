import type { SlackActionRow } from "@/lib/db/statements/notifications/load-slack-action-state";
import { summaryOf } from "@/lib/review/list-review-queue";
import { RISK_RANK, type RiskLevel } from "@/lib/risk/risk-tag";
import { slackShowsWhole, type SlackActionState } from "@/lib/slack/slack-message";

/** The row as the renderer takes it (risk tags sorted by severity, the preview's summary). */
export function slackActionStateOf(row: SlackActionRow): SlackActionState {
  const tags = Array.isArray(row.riskTags) ? (row.riskTags as Array<{ id: string; severity: RiskLevel; reason: string }>) : [];
  return {
    actionId: row.actionId, tool: row.tool, status: row.status, revision: row.revision, payloadHash: row.payloadHash,
    summary: summaryOf(row.preview, row.tool), args: row.args, riskLevel: row.riskLevel,
    riskTags: [...tags].sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]).map(({ id, severity, reason }) => ({ id, severity, reason })),
    expiresAt: row.expiresAt, requesterLabel: row.requesterLabel, signatureRequired: row.signatureRequired, minViewTime: row.minViewTime,
    argumentsShownWhole: slackShowsWhole(row.kind, row.args), decidedBy: row.decidedBy,
  };
}
