import type { KnownBlock } from "@slack/web-api";
import { RISK_RANK, type RiskLevel } from "@/lib/risk/risk-tag";

/** What a Slack message about an action is rendered from: the action's state when it is sent. */
export type SlackActionState = {
  actionId: string;
  tool: string;
  status: string;
  revision: number;
  payloadHash: string;
  summary: string;
  args: unknown;
  riskLevel: RiskLevel;
  riskTags: Array<{ id: string; severity: RiskLevel; reason: string }>;
  expiresAt: Date | null;
  requesterLabel: string;
  /** The revision's policy requires a passkey-signed approval. */
  signatureRequired: boolean;
  /** The revision's policy asks for a minimum time on screen, which Slack cannot show. */
  minViewTime: boolean;
  /** The message lists every argument, each whole (see argumentsSummary); never for code, which it does not show. */
  argumentsShownWhole: boolean;
  /** The last vote's verdict and who cast it, for a decided action. */
  decidedBy: string | null;
};

/** What a button carries back to the console: which revision, and the payload hash the message showed. */
export type SlackButtonValue = { actionId: string; revision: number; payloadHash: string };

export const SLACK_ACTION_IDS = { approve: "countersign_approve", reject: "countersign_reject", open: "countersign_open" } as const;

/** Why a pending action is offered with "Open" only, or null when Slack may approve and reject it. */
export function openOnlyReason(
  state: Pick<SlackActionState, "signatureRequired" | "minViewTime" | "argumentsShownWhole" | "riskLevel">, openOnlyFrom: RiskLevel,
): string | null {
  if (state.signatureRequired) return "Its policy requires approving with a passkey: open it in Countersign.";
  if (state.minViewTime) return "Its policy asks reviewers to read it for a minimum time: open it in Countersign.";
  // A vote binds to the whole payload: it is cast only where the whole payload was shown.
  if (!state.argumentsShownWhole) return "This message shows only part of what it would run: read all of it in Countersign.";
  if (RISK_RANK[state.riskLevel] >= RISK_RANK[openOnlyFrom]) return `Its risk is ${state.riskLevel}: decide it in Countersign.`;
  return null;
}

/** Slack mrkdwn with the three characters Slack asks to escape escaped, so no text becomes a mention or link. */
function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Whether a message shows a revision's whole payload: never a code action's code, else argumentsSummary's `whole`. */
export function slackShowsWhole(kind: "tool" | "code", args: unknown): boolean {
  return kind === "tool" && argumentsSummary(args).whole;
}

const SHOWN_ARGUMENTS = 6;
// Keys and values are shown in code spans (no mrkdwn formatting), where a backtick would end the
// span; control and format characters (bidi overrides, zero-width ones) are not seen as what they are.
const NOT_AS_IS = /[`\p{Cc}\p{Cf}]/u;
const shownAsIs = (key: string, value: string) => !NOT_AS_IS.test(key) && !NOT_AS_IS.test(value);
const SHOWN_KEY_CHARS = 40;
const SHOWN_VALUE_CHARS = 80;

/**
 * Up to six top-level arguments, values clipped (whitespace runs as one space, a backtick as ˋ).
 * `whole`: every argument shown exactly, unclipped — only then may Slack decide it (openOnlyReason).
 */
export function argumentsSummary(args: unknown): { text: string; whole: boolean } {
  if (args === null || args === undefined) return { text: "", whole: true };
  if (typeof args !== "object" || Array.isArray(args)) return { text: "", whole: false };
  const entries = Object.entries(args as Record<string, unknown>);
  let whole = entries.length <= SHOWN_ARGUMENTS;
  const lines = entries.slice(0, SHOWN_ARGUMENTS).map(([key, value]) => {
    const shown = typeof value === "string" ? value : JSON.stringify(value) ?? "null";
    if (clip(key, SHOWN_KEY_CHARS) !== key || clip(shown, SHOWN_VALUE_CHARS) !== shown || !shownAsIs(key, shown)) whole = false;
    const code = (text: string, max: number) => `\`${esc(clip(text, max)).replace(/`/g, "ˋ")}\``;
    return `• ${code(key, SHOWN_KEY_CHARS)}: ${code(shown, SHOWN_VALUE_CHARS)}`;
  });
  if (entries.length > SHOWN_ARGUMENTS) lines.push(`• …and ${entries.length - SHOWN_ARGUMENTS} more`);
  return { text: lines.join("\n"), whole };
}

/** The expiry as Slack shows dates: in the reader's time zone, with the ISO time as the fallback. */
function expiresField(expiresAt: Date): string {
  return `*Expires*\n<!date^${Math.floor(expiresAt.getTime() / 1000)}^{date_short_pretty} {time}|${expiresAt.toISOString()}>`;
}

const OUTCOME: Record<string, string> = {
  approved: "Approved", rejected: "Rejected", expired: "Expired undecided", cancelled: "Cancelled by the requester",
  invalidated: "Invalidated: what it would act on changed", denied: "Denied by policy", executing: "Approved, executing",
  succeeded: "Approved and executed", failed: "Approved; execution failed", unknown: "Approved; execution outcome unknown",
};

/**
 * The Block Kit message for an action: tool, arguments, risk, expiry and, while pending, Approve /
 * Reject / Open (or Open only) naming the revision and hash shown, so a vote binds to what was
 * seen. Once decided, the outcome replaces the buttons.
 */
export function renderSlackMessage(state: SlackActionState, options: { consoleUrl: string; openOnlyFrom: RiskLevel }): { text: string; blocks: KnownBlock[] } {
  const url = `${options.consoleUrl}/actions/${state.actionId}`;
  const pending = state.status === "pending";
  const headline = pending
    ? `Waiting for review: ${state.tool} (risk ${state.riskLevel})`
    : `${OUTCOME[state.status] ?? state.status}: ${state.tool}`;
  const tags = state.riskTags.slice(0, 5).map((tag) => `• *${tag.severity}* ${esc(clip(tag.reason, 150))}`);
  const fields = [
    `*Tool*\n\`${esc(state.tool)}\``,
    `*Risk*\n${state.riskLevel}`,
    `*Requested by*\n${esc(clip(state.requesterLabel, 80))}`,
    `*Revision*\n${state.revision} · \`${state.payloadHash.slice(0, 12)}\``,
  ];
  if (state.expiresAt) fields.push(expiresField(state.expiresAt));
  const blocks: KnownBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${esc(headline)}*\n${esc(clip(state.summary, 300))}` } },
    { type: "section", fields: fields.map((text) => ({ type: "mrkdwn" as const, text })) },
  ];
  const summary = argumentsSummary(state.args).text;
  if (summary) blocks.push({ type: "section", text: { type: "mrkdwn", text: `*Arguments*\n${summary}` } });
  if (tags.length > 0) blocks.push({ type: "section", text: { type: "mrkdwn", text: `*Risk tags*\n${tags.join("\n")}` } });
  const value = JSON.stringify({ actionId: state.actionId, revision: state.revision, payloadHash: state.payloadHash } satisfies SlackButtonValue);
  const open = { type: "button" as const, action_id: SLACK_ACTION_IDS.open, text: { type: "plain_text" as const, text: "Open" }, url, value };
  if (pending) {
    const reason = openOnlyReason(state, options.openOnlyFrom);
    blocks.push({
      type: "actions",
      block_id: `countersign_${state.actionId}_r${state.revision}`,
      elements: reason
        ? [open]
        : [
          { type: "button", action_id: SLACK_ACTION_IDS.approve, style: "primary", text: { type: "plain_text", text: "Approve" }, value },
          { type: "button", action_id: SLACK_ACTION_IDS.reject, style: "danger", text: { type: "plain_text", text: "Reject" }, value },
          open,
        ],
    });
    if (reason) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: esc(reason) }] });
  } else {
    const by = state.decidedBy ? ` (last vote by ${esc(state.decidedBy)})` : "";
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `*${esc(OUTCOME[state.status] ?? state.status)}*${by} · <${url}|Open in Countersign>` }] });
  }
  return { text: headline, blocks };
}

/** How long an escalated action had waited, in words: "30 minutes", "3 hours", "2 hours 15 minutes". */
export function waitedFor(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (minutes < 120) return unit(minutes, "minute");
  const rest = minutes % 60;
  return rest === 0 ? unit(minutes / 60, "hour") : `${unit(Math.floor(minutes / 60), "hour")} ${unit(rest, "minute")}`;
}

/**
 * An escalation's notice, posted once to the rule's channel: waiting time, role, tool, summary,
 * risk, expiry and an Open link. Never Approve or Reject: the channel is whoever the rule chases.
 */
export function renderSlackEscalation(
  state: Pick<SlackActionState, "actionId" | "tool" | "revision" | "summary" | "riskLevel" | "expiresAt">,
  escalation: { role: string; afterSeconds: number; consoleUrl: string },
): { text: string; blocks: KnownBlock[] } {
  const headline = `Waiting ${waitedFor(escalation.afterSeconds)} for ${escalation.role}: ${state.tool} (risk ${state.riskLevel})`;
  const fields = [`*Tool*\n\`${esc(state.tool)}\``, `*Risk*\n${state.riskLevel}`];
  if (state.expiresAt) fields.push(expiresField(state.expiresAt));
  return {
    text: headline,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${esc(headline)}*\n${esc(clip(state.summary, 300))}` } },
      { type: "section", fields: fields.map((text) => ({ type: "mrkdwn" as const, text })) },
      {
        type: "actions",
        block_id: `countersign_escalation_${state.actionId}_r${state.revision}`,
        elements: [{ type: "button", action_id: SLACK_ACTION_IDS.open, text: { type: "plain_text", text: "Open" }, url: `${escalation.consoleUrl}/actions/${state.actionId}` }],
      },
    ],
  };
}
