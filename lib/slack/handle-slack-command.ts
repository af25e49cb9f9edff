import type { Db } from "@/lib/db/client";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import { redeemSlackLinkCode } from "@/lib/db/statements/notifications/redeem-slack-link-code";
import { sqlTransaction } from "@/lib/db/sql";
import { auditSlackRefusal, authenticateSlackRequest, type SlackRequest } from "@/lib/slack/authenticate-slack-request";
import type { SlackAnswer } from "@/lib/slack/handle-slack-interaction";
import { slackLinkCodeHash } from "@/lib/slack/start-slack-link";

const ephemeral = (text: string): SlackAnswer => ({ status: 200, body: { response_type: "ephemeral", text } });

/**
 * `/countersign link CODE`, signature verified: Slack names the user, the one-time code the member
 * who asked for it, and together they link. A wrong, used or expired code is audited, changes nothing.
 */
export async function handleSlackCommand(db: Db, request: SlackRequest): Promise<SlackAnswer> {
  const auth = await authenticateSlackRequest(db, request);
  if (!auth.ok) return { status: auth.status, body: { error: auth.message } };
  const { tenantId } = auth.tenant;
  const form = new URLSearchParams(request.rawBody);
  const slackUserId = (form.get("user_id") ?? "").slice(0, 40);
  const slackTeamId = (form.get("team_id") ?? "").slice(0, 40);
  const [verb, code] = (form.get("text") ?? "").trim().split(/\s+/, 2);
  if (!slackUserId || !slackTeamId) {
    const message = "The command did not name a Slack user and workspace.";
    await auditSlackRefusal(db, { tenantId, reason: "malformed", message, slackTeamId, slackUserId });
    return { status: 400, body: { error: message } };
  }
  if (verb?.toLowerCase() !== "link" || !code) {
    return ephemeral("Use `/countersign link CODE` with the code shown on your Countersign account page (Slack section).");
  }
  const linked = await sqlTransaction(db, (tx) =>
    redeemSlackLinkCode(tx, {
      tenantId, codeHash: slackLinkCodeHash(code), slackTeamId, slackUserId,
      event: (userId, label) => auditBodyOf({
        tenantId, actor: { type: "user", id: userId, label }, type: "slack.user_linked", outcome: "ok", subject: { type: "user", id: userId },
        data: { slackTeamId, slackUserId },
      }),
    }));
  if (!linked) {
    const message = "That code is unknown, used or expired: get a new one on your Countersign account page and send it within ten minutes.";
    await auditSlackRefusal(db, { tenantId, reason: "bad_link_code", message, slackTeamId, slackUserId });
    return ephemeral(message);
  }
  void requestSeal(db, tenantId);
  return ephemeral("Linked: buttons you press on Countersign messages now count as your decisions.");
}
