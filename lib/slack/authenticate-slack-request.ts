import type { Db } from "@/lib/db/client";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import type { RiskLevel } from "@/lib/risk/risk-tag";
import { openSlackSecrets } from "@/lib/slack/slack-secrets";
import { verifySlackSignature } from "@/lib/slack/verify-slack-signature";
import { unsignedSlackCallbackAuditFor } from "@/lib/slack/audit-unsigned-slack-callback";

export type SlackRefusalReason =
  | "bad_signature" | "old_timestamp" | "not_configured" | "malformed" | "unlinked_user" | "bad_link_code" | "open_only" | "not_found";

export type SlackRequest = { tenantSlug: string; rawBody: string; timestamp: string | null; signature: string | null; nowSeconds: number };

export type SlackTenant = { tenantId: string; botToken: string; channel: string; openOnlyFrom: RiskLevel };

/**
 * A signed callback refused before any decision: audited (never with a secret or the body),
 * changing nothing else. Unsigned ones are counted instead (lib/slack/audit-unsigned-slack-callback.ts).
 */
export async function auditSlackRefusal(
  db: Db,
  input: { tenantId: string; reason: SlackRefusalReason; message: string; slackTeamId?: string | null; slackUserId?: string | null; actionId?: string | null },
): Promise<void> {
  await appendAuditEvent(db, {
    tenantId: input.tenantId, actor: SYSTEM_ACTOR, type: "slack.callback_refused", outcome: "refused",
    subject: { type: "slack", id: input.slackUserId ?? null }, actionId: input.actionId ?? null,
    data: {
      reason: input.reason, message: input.message, slackTeamId: input.slackTeamId?.slice(0, 40) ?? null,
      slackUserId: input.slackUserId?.slice(0, 40) ?? null, actionId: input.actionId ?? null,
    },
  });
}

/**
 * The tenant a request to its Slack endpoints is for, once its Slack app's v0 signature over the
 * raw body verifies with a timestamp within five minutes. Refusals are counted in the tenant's log.
 */
export async function authenticateSlackRequest(
  db: Db,
  request: SlackRequest,
): Promise<{ ok: true; tenant: SlackTenant } | { ok: false; status: number; message: string }> {
  const tenant = await db.tenant.findUnique({ where: { slug: request.tenantSlug }, select: { id: true, slackIntegration: true } });
  if (!tenant) return { ok: false, status: 404, message: "No such organisation." };
  const integration = tenant.slackIntegration;
  if (!integration) {
    const message = "Slack is not configured for this organisation.";
    unsignedSlackCallbackAuditFor(db).note(tenant.id, "not_configured", message);
    return { ok: false, status: 404, message };
  }
  const secrets = openSlackSecrets(integration.secrets, tenant.id);
  const checked = verifySlackSignature({ signingSecret: secrets.signingSecret, ...request });
  if (!checked.ok) {
    unsignedSlackCallbackAuditFor(db).note(tenant.id, checked.reason, checked.message);
    return { ok: false, status: 401, message: checked.message };
  }
  return { ok: true, tenant: { tenantId: tenant.id, botToken: secrets.botToken, channel: integration.channel, openOnlyFrom: integration.openOnlyFrom } };
}
