import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { decideAction } from "@/lib/approvals/decide-action";
import { loadSlackActionState } from "@/lib/db/statements/notifications/load-slack-action-state";
import { makeOutboxDueAgain } from "@/lib/db/statements/outbox/make-outbox-due-again";
import { isUuid } from "@/lib/db/uuid";
import { isAppError } from "@/lib/errors";
import { auditSlackRefusal, authenticateSlackRequest, type SlackRequest, type SlackTenant } from "@/lib/slack/authenticate-slack-request";
import { slackActionStateOf } from "@/lib/slack/slack-action-state";
import { SLACK_MESSAGE_CHANNEL } from "@/lib/slack/slack-message-channel";
import { slackSettings } from "@/lib/slack/slack-settings";
import { slackClient } from "@/lib/slack/slack-client";
import { slackMember } from "@/lib/slack/slack-member";
import { openOnlyReason, SLACK_ACTION_IDS, type SlackButtonValue } from "@/lib/slack/slack-message";

const ButtonValueSchema = z.strictObject({ actionId: z.string().refine(isUuid), revision: z.number().int().min(1), payloadHash: z.string().regex(/^[0-9a-f]{64}$/) });
const SlackUser = z.object({ id: z.string().min(1).max(40), team_id: z.string().min(1).max(40).optional() });
const Team = z.object({ id: z.string().min(1).max(40) }).nullable().optional();

// Slack's payloads carry much more; only what is used is read (unknown keys are ignored, not trusted).
const BlockActionsSchema = z.object({
  type: z.literal("block_actions"), user: SlackUser, team: Team, trigger_id: z.string().max(200).optional(),
  channel: z.object({ id: z.string().max(40) }).optional(),
  container: z.object({ message_ts: z.string().max(40).optional(), channel_id: z.string().max(40).optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string().max(100), value: z.string().max(2000).optional() })).min(1),
});
const ViewSubmissionSchema = z.object({
  type: z.literal("view_submission"), user: SlackUser, team: Team,
  view: z.object({
    callback_id: z.literal("countersign_reject"), private_metadata: z.string().max(3000),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullable().optional() }))) }),
  }),
});
const PayloadSchema = z.discriminatedUnion("type", [BlockActionsSchema, ViewSubmissionSchema]);
const RejectMetadataSchema = ButtonValueSchema.extend({ channel: z.string().max(40).nullable() });

export type SlackAnswer = { status: number; body: Record<string, unknown> | null };

const REASON_BLOCK = "countersign_reason";
const REASON_INPUT = "reason";

/** Tells the Slack user why (visible only to them). Best effort: a failure is not the callback's failure. */
async function tellUser(tenant: SlackTenant, channel: string | null | undefined, user: string, text: string): Promise<void> {
  try {
    await slackClient(tenant.botToken).chat.postEphemeral({ channel: channel || tenant.channel, user, text });
  } catch (error) {
    console.error("[countersign] slack: could not answer the user:", error instanceof Error ? error.message : "unknown error");
  }
}

/**
 * A button or the reject dialog, signature verified: the linked member votes through
 * `decideAction` with the payload hash the message showed, so a stale message is refused (and
 * updated). Every refusal is audited, changes nothing, and tells the user why.
 */
export async function handleSlackInteraction(db: Db, request: SlackRequest): Promise<SlackAnswer> {
  const auth = await authenticateSlackRequest(db, request);
  if (!auth.ok) return { status: auth.status, body: { error: auth.message } };
  const { tenant } = auth;
  let payload: z.infer<typeof PayloadSchema>;
  try {
    payload = PayloadSchema.parse(JSON.parse(new URLSearchParams(request.rawBody).get("payload") ?? ""));
  } catch {
    const message = "The request is not a Slack interaction this app understands.";
    await auditSlackRefusal(db, { tenantId: tenant.tenantId, reason: "malformed", message });
    return { status: 400, body: { error: message } };
  }
  const slackUserId = payload.user.id;
  const slackTeamId = payload.team?.id ?? payload.user.team_id ?? "";
  const who = { tenantId: tenant.tenantId, slackTeamId, slackUserId };

  if (payload.type === "block_actions") {
    const [pressed] = payload.actions;
    if (pressed.action_id === SLACK_ACTION_IDS.open) return { status: 200, body: null };
    const channel = payload.channel?.id ?? payload.container?.channel_id ?? null;
    const value = ButtonValueSchema.safeParse(safeJson(pressed.value));
    const verdict = pressed.action_id === SLACK_ACTION_IDS.approve ? "approve" : pressed.action_id === SLACK_ACTION_IDS.reject ? "reject" : null;
    if (!value.success || !verdict) {
      const message = "The button is not one of Countersign's.";
      await auditSlackRefusal(db, { ...who, reason: "malformed", message });
      return { status: 400, body: { error: message } };
    }
    const checked = await checkVoter(db, tenant, who, value.data);
    if (!checked.ok) {
      await tellUser(tenant, channel, slackUserId, checked.message);
      return { status: 200, body: null };
    }
    if (verdict === "reject") {
      // A rejection needs a reason (it is sent back to the agent): ask for it in a dialog.
      await slackClient(tenant.botToken).views.open({
        trigger_id: payload.trigger_id ?? "",
        view: {
          type: "modal", callback_id: "countersign_reject",
          private_metadata: JSON.stringify({ ...value.data, channel }),
          title: { type: "plain_text", text: "Reject action" }, submit: { type: "plain_text", text: "Reject" }, close: { type: "plain_text", text: "Cancel" },
          blocks: [{
            type: "input", block_id: REASON_BLOCK, label: { type: "plain_text", text: "Reason (sent back to the agent)" },
            element: { type: "plain_text_input", action_id: REASON_INPUT, multiline: true, max_length: 2000 },
          }],
        },
      });
      return { status: 200, body: null };
    }
    const outcome = await vote(db, tenant, checked.member, value.data, "approve", null);
    await tellUser(tenant, channel, slackUserId, outcome.message);
    return { status: 200, body: null };
  }

  const metadata = RejectMetadataSchema.safeParse(safeJson(payload.view.private_metadata));
  if (!metadata.success) {
    const message = "The dialog is not one of Countersign's.";
    await auditSlackRefusal(db, { ...who, reason: "malformed", message });
    return { status: 400, body: { error: message } };
  }
  const { channel, ...shown } = metadata.data;
  const checked = await checkVoter(db, tenant, who, shown);
  if (!checked.ok) return { status: 200, body: { response_action: "errors", errors: { [REASON_BLOCK]: checked.message } } };
  const note = payload.view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value ?? null;
  const outcome = await vote(db, tenant, checked.member, shown, "reject", note);
  if (!outcome.ok) return { status: 200, body: { response_action: "errors", errors: { [REASON_BLOCK]: outcome.message } } };
  await tellUser(tenant, channel, slackUserId, outcome.message);
  return { status: 200, body: null };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return null;
  }
}

/** The linked member, and the action not one Slack offers "Open" only for; otherwise audited and refused. */
async function checkVoter(
  db: Db, tenant: SlackTenant, who: { tenantId: string; slackTeamId: string; slackUserId: string }, shown: SlackButtonValue,
): Promise<{ ok: true; member: NonNullable<Awaited<ReturnType<typeof slackMember>>> } | { ok: false; message: string }> {
  const member = await slackMember(db, who);
  if (!member) {
    const message = "Your Slack user is not linked to a member of this Countersign organisation: get a code on your Countersign account page and send `/countersign link CODE` here.";
    await auditSlackRefusal(db, { ...who, reason: "unlinked_user", message, actionId: shown.actionId });
    return { ok: false, message };
  }
  const row = await loadSlackActionState(db, { tenantId: tenant.tenantId, actionId: shown.actionId });
  if (!row) {
    const message = "That action was not found.";
    await auditSlackRefusal(db, { ...who, reason: "not_found", message, actionId: shown.actionId });
    return { ok: false, message };
  }
  const reason = openOnlyReason(slackActionStateOf(row), tenant.openOnlyFrom);
  if (reason && row.status === "pending") {
    const message = `This action cannot be decided from Slack. ${reason}`;
    await auditSlackRefusal(db, { ...who, reason: "open_only", message, actionId: shown.actionId });
    return { ok: false, message };
  }
  return { ok: true, member };
}

/** The vote, through the console's decision function; a stale or settled message is updated to what is current. */
async function vote(
  db: Db, tenant: SlackTenant, member: NonNullable<Awaited<ReturnType<typeof slackMember>>>, shown: SlackButtonValue,
  verdict: "approve" | "reject", note: string | null,
): Promise<{ ok: boolean; message: string }> {
  const url = `${slackSettings().consoleUrl}/actions/${shown.actionId}`;
  try {
    const outcome = await decideAction(db, {
      tenantId: tenant.tenantId, actionId: shown.actionId, reviewer: member, verdict, note, payloadHash: shown.payloadHash, channel: "slack",
    });
    const tally = outcome.status === "pending" ? ` (${outcome.approvals} of ${outcome.quorum} approvals)` : "";
    return { ok: true, message: `Recorded: you ${verdict === "approve" ? "approved" : "rejected"} revision ${outcome.revision}${tally}. ${url}` };
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === "stale_hash" || error.code === "not_pending" || error.code === "expired") {
      // The message shows what is current again.
      await makeOutboxDueAgain(db, { tenantId: tenant.tenantId, channel: SLACK_MESSAGE_CHANNEL, dedupeKey: shown.actionId, minWindowSeconds: 3600 });
    }
    // A changed state is re-read in the console, where the new revision is decided: say where.
    return { ok: false, message: `Not recorded: ${error.message}${error.code === "state_changed" ? ` ${url}` : ""}` };
  }
}
