import type { Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { enqueueSlackMessages } from "@/lib/db/statements/notifications/enqueue-slack-messages";
import { leaseSlackMessages, type LeasedSlackMessage } from "@/lib/db/statements/notifications/lease-slack-messages";
import { leaseSlackNotices, type LeasedSlackNotice } from "@/lib/db/statements/notifications/lease-slack-notices";
import { loadSlackActionState, type SlackActionRow } from "@/lib/db/statements/notifications/load-slack-action-state";
import { recordSlackAttempt } from "@/lib/db/statements/notifications/record-slack-attempt";
import { recordSlackNoticeAttempt } from "@/lib/db/statements/notifications/record-slack-notice-attempt";
import { RISK_RANK, type RiskLevel } from "@/lib/risk/risk-tag";
import { slackClient } from "@/lib/slack/slack-client";
import { renderSlackEscalation, renderSlackMessage, slackShowsWhole, type SlackActionState } from "@/lib/slack/slack-message";
import { openSlackSecrets } from "@/lib/slack/slack-secrets";
import { retryDelayMs, webhookSettings } from "@/lib/webhooks/webhook-settings";
import { summaryOf } from "@/lib/review/list-review-queue";
import { runPumpLoop } from "@/lib/outbox/run-pump-loop";

/** The console's public URL, for the messages' Open links. */
export function consoleUrl(): string {
  return (readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, "");
}

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

type Sent = { ok: boolean; error: string | null; channel: string | null; ts: string | null; shownRevision: number | null; shownStatus: string | null };

/** Posts or updates one action's message from its state now. Never throws; never logs a secret. */
async function send(db: Db, message: LeasedSlackMessage): Promise<Sent> {
  const none = { channel: null, ts: null, shownRevision: null, shownStatus: null };
  try {
    const integration = await db.slackIntegration.findUnique({ where: { tenantId: message.tenantId } });
    if (!integration) return { ok: true, error: "Slack is no longer configured for this tenant.", ...none };
    const row = await loadSlackActionState(db, { tenantId: message.tenantId, actionId: message.actionId });
    if (!row) return { ok: true, error: "The action no longer exists.", ...none };
    // Nothing to say about an action never posted that no longer waits.
    if (!message.ts && row.status !== "pending") return { ok: true, error: null, ...none };
    const { botToken } = openSlackSecrets(integration.secrets, message.tenantId);
    const rendered = renderSlackMessage(slackActionStateOf(row), { consoleUrl: consoleUrl(), openOnlyFrom: integration.openOnlyFrom });
    const client = slackClient(botToken);
    const shown = { shownRevision: row.revision, shownStatus: row.status };
    if (message.ts && message.channel) {
      await client.chat.update({ channel: message.channel, ts: message.ts, text: rendered.text, blocks: rendered.blocks });
      return { ok: true, error: null, channel: null, ts: null, ...shown };
    }
    const posted = await client.chat.postMessage({ channel: integration.channel, text: rendered.text, blocks: rendered.blocks, unfurl_links: false });
    if (!posted.ts || !posted.channel) return { ok: false, error: "Slack did not return the message's channel and ts.", ...none };
    return { ok: true, error: null, channel: posted.channel, ts: posted.ts, ...shown };
  } catch (error) {
    // @slack/web-api errors name Slack's error code (e.g. channel_not_found), never the token.
    const text = error instanceof Error ? error.message : "The message could not be sent.";
    return { ok: false, error: text.slice(0, 500), ...none };
  }
}

/**
 * Posts one escalation notice to the rule's channel, if the action still waits at the escalated
 * revision (otherwise there is nothing left to chase, and the notice is done unsent). Never
 * throws; never logs a secret.
 */
async function sendNotice(db: Db, notice: LeasedSlackNotice): Promise<{ ok: boolean; error: string | null; ts: string | null }> {
  try {
    const integration = await db.slackIntegration.findUnique({ where: { tenantId: notice.tenantId } });
    if (!integration) return { ok: true, error: "Slack is no longer configured for this tenant.", ts: null };
    const row = await loadSlackActionState(db, { tenantId: notice.tenantId, actionId: notice.actionId });
    if (!row || row.status !== "pending" || row.revision !== notice.revision) return { ok: true, error: "The action no longer waits at the escalated revision.", ts: null };
    const { botToken } = openSlackSecrets(integration.secrets, notice.tenantId);
    const rendered = renderSlackEscalation(slackActionStateOf(row), { role: notice.role, afterSeconds: notice.afterSeconds, consoleUrl: consoleUrl() });
    const posted = await slackClient(botToken).chat.postMessage({ channel: notice.channel, text: rendered.text, blocks: rendered.blocks, unfurl_links: false });
    return { ok: true, error: null, ts: posted.ts ?? null };
  } catch (error) {
    const text = error instanceof Error ? error.message : "The notice could not be sent.";
    return { ok: false, error: text.slice(0, 500), ts: null };
  }
}

/**
 * One pass of the Slack outbox: turn newly sealed audit events into due messages and escalation
 * notices, then post or update what is due (up to `limit` of each, concurrently). Returns how many
 * rows were made due and attempted.
 */
export async function pumpSlack(db: Db, options: { workerId: string; limit?: number }): Promise<{ added: number; attempted: number }> {
  const settings = webhookSettings();
  const added = await enqueueSlackMessages(db, { retryWindowSeconds: settings.retryWindowSeconds, batch: 1000 });
  const lease = { workerId: options.workerId, leaseSeconds: Math.ceil(settings.timeoutMs / 1000) + 30, limit: options.limit ?? 16 };
  const leased = await leaseSlackMessages(db, lease);
  const notices = await leaseSlackNotices(db, lease);
  await Promise.all([
    ...leased.map(async (message) => {
      const sent = await send(db, message);
      await recordSlackAttempt(db, {
        id: message.id, workerId: options.workerId, wantedSeq: message.wantedSeq, retryAfterSeconds: retryDelayMs(message.attempts, settings.retryBaseMs) / 1000,
        ...sent,
      });
    }),
    ...notices.map(async (notice) => {
      const sent = await sendNotice(db, notice);
      await recordSlackNoticeAttempt(db, {
        id: notice.id, workerId: options.workerId, retryAfterSeconds: retryDelayMs(notice.attempts, settings.retryBaseMs) / 1000, ...sent,
      });
    }),
  ]);
  return { added, attempted: leased.length + notices.length };
}

/** The Slack worker: pumps the outbox every `pollMs` until the signal aborts (beside the webhook worker). */
export async function runSlackWorker(options: { db: Db; signal?: AbortSignal; pollMs?: number; workerId?: string }): Promise<void> {
  await runPumpLoop({
    name: "slack", pollMs: options.pollMs ?? 1000, signal: options.signal, workerId: options.workerId,
    pump: (workerId) => pumpSlack(options.db, { workerId }),
  });
}
