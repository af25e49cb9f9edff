import { formatPolicyDuration } from "@/lib/policy/policy-duration";
import { formatMinor } from "@/lib/tools/money";

/** What one email says about one action, gathered at send time (lib/notifications/read-action-facts.ts). */
export type ActionFacts = {
  actionId: string;
  tenantName: string;
  tool: string;
  summary: string;
  riskLevel: string;
  riskTags: string[];
  amountMinor: number | null;
  currency: string;
  expiresAt: Date | null;
  requester: string;
  reason: "pending" | "escalated" | "expiry_warning" | "reopened";
  /** escalated: how long it had waited. */
  waitedSeconds: number | null;
};

export type RenderedEmail = { subject: string; text: string };

const when = (date: Date | null) => (date ? `${date.toISOString().slice(0, 16).replace("T", " ")} UTC` : "no expiry");
/**
 * Text an agent chose (the summary is built from its arguments) on one line, without invisible or
 * control characters, and with any web address defanged (`https[:]//…`): the email's only link
 * is the console's own, so a payload cannot plant one that looks like a way to approve.
 */
const oneLine = (text: string, max = 160) => {
  const flat = text
    .replace(/[\p{Cc}\p{Cf}]+/gu, " ")
    .replace(/\s+/g, " ")
    .replace(/\b([a-z][a-z0-9+.-]*):\/\//gi, "$1[:]//")
    .replace(/\bwww\./gi, "www[.]")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
};

function actionUrl(consoleUrl: string, actionId: string): string {
  return `${consoleUrl}/actions/${actionId}`;
}

function lead(facts: ActionFacts): string {
  if (facts.reason === "escalated") {
    return `This action has waited ${facts.waitedSeconds ? formatPolicyDuration(facts.waitedSeconds) : "a while"} for review, so it is escalated to you.`;
  }
  if (facts.reason === "expiry_warning") return `This action expires at ${when(facts.expiresAt)} unless it is decided; then it is not run.`;
  if (facts.reason === "reopened") return "This action was approved, but an approval of it no longer counts (its reviewer may no longer decide, or the passkey that signed it was removed), so it waits for review again.";
  return "An action is waiting for your review.";
}

function details(facts: ActionFacts, consoleUrl: string): string[] {
  return [
    `What:      ${facts.tool}: ${oneLine(facts.summary)}`,
    `Risk:      ${facts.riskLevel}${facts.riskTags.length > 0 ? ` (${facts.riskTags.slice(0, 5).join(", ")})` : ""}`,
    ...(facts.amountMinor === null ? [] : [`Amount:    ${formatMinor(facts.amountMinor, facts.currency)}`]),
    `Expires:   ${when(facts.expiresAt)}`,
    `Requested: ${oneLine(facts.requester, 120)}`,
    `Open:      ${actionUrl(consoleUrl, facts.actionId)}`,
  ];
}

const FOOTER = [
  "",
  "Review it on the action page, signed in: Countersign never takes a decision from an email.",
  "You get these emails as a reviewer in this organisation; choose immediate or a digest on your account page.",
];

/** One action's email. Plain text; the only link is the action's page (never a decision). */
export function renderImmediateEmail(facts: ActionFacts, consoleUrl: string): RenderedEmail {
  const prefix = { escalated: "Escalated", expiry_warning: "Expires soon", reopened: "Review again", pending: "Review" }[facts.reason];
  return {
    subject: oneLine(`[Countersign] ${prefix}: ${facts.tool} - ${facts.summary} - ${facts.riskLevel} risk`, 200),
    text: [`${oneLine(facts.tenantName, 80)}: ${lead(facts)}`, "", ...details(facts, consoleUrl), ...FOOTER].join("\n"),
  };
}

/** One email listing a member's waiting actions of one tenant. */
export function renderDigestEmail(items: ActionFacts[], consoleUrl: string): RenderedEmail {
  const tenantName = items[0]?.tenantName ?? "Countersign";
  const n = items.length;
  return {
    subject: `[Countersign] ${n} action${n === 1 ? "" : "s"} waiting for your review in ${oneLine(tenantName, 80)}`,
    text: [
      `${oneLine(tenantName, 80)}: ${n === 1 ? "this action is" : `these ${n} actions are`} waiting for your review.`,
      ...items.flatMap((facts, i) => ["", `${i + 1}. ${lead(facts)}`, ...details(facts, consoleUrl).map((line) => `   ${line}`)]),
      ...FOOTER,
    ].join("\n"),
  };
}
