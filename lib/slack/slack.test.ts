import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant, TEST_PASSWORD, type TestTenant, type TestUser } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { startFakeSlack, type SlackCall } from "@/tests/fake-slack";
import { POST as interactionsRoute } from "@/app/api/integrations/slack/[tenant]/interactions/route";
import { POST as commandsRoute } from "@/app/api/integrations/slack/[tenant]/commands/route";
import { createDb, getDb } from "@/lib/db/client";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { sweepActionReminders } from "@/lib/notifications/sweep-action-reminders";
import { configureSlack } from "@/lib/slack/configure-slack";
import { pumpSlack } from "@/lib/slack/slack-notice-channel";
import { leaseOutbox } from "@/lib/db/statements/outbox/lease-outbox";
import { recordOutboxAttempt } from "@/lib/db/statements/outbox/record-outbox-attempt";
import { slackMessageChannel } from "@/lib/slack/slack-message-channel";
import { slackNoticeChannel } from "@/lib/slack/slack-notice-channel";
import { listOutboxDeliveries } from "@/lib/outbox/list-outbox-deliveries";
import { listFailedSlackDeliveries, resendSlackDelivery } from "@/lib/slack/slack-deliveries";
import { refusal } from "@/tests/refusal";
import { whileHolding } from "@/tests/action-lock";
import { setUpTestDatabase } from "@/tests/fixtures";
import { changePassword } from "@/lib/auth/change-password";
import { slackMember } from "@/lib/slack/slack-member";
import { argumentsSummary, SLACK_ACTION_IDS } from "@/lib/slack/slack-message";
import { SLACK_LINK_CODE_TTL_SECONDS, startSlackLink } from "@/lib/slack/start-slack-link";
import { slackSignature } from "@/lib/slack/verify-slack-signature";
import { unsignedSlackCallbackAuditFor } from "@/lib/slack/audit-unsigned-slack-callback";

const TOKEN = "xoxb-1111-2222-countersigntest";
const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5".replace(/[^0-9a-f]/g, "0");
const TEAM = "T0TESTTEAM";
const CHANNEL = "C0APPROVALS";

const t = setUpTestDatabase({ appClient: true });
let slack: Awaited<ReturnType<typeof startFakeSlack>>;

beforeAll(async () => {
  slack = await startFakeSlack({ token: TOKEN });
  vi.stubEnv("SLACK_API_URL", slack.url);
  vi.stubEnv("SLACK_RETRY_BASE_MS", "20");
  vi.stubEnv("NEXTAUTH_URL", "https://console.example.test");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await slack?.close();
});

const adminOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });

async function slackTenant(options: { signatureAtRisk?: "low"; openOnlyFrom?: "high" | "critical"; policy?: Policy } = {}) {
  const policy = options.signatureAtRisk ? { ...DEFAULT_POLICY, defaults: { ...DEFAULT_POLICY.defaults, signatureAtRisk: options.signatureAtRisk } } : options.policy;
  const tenant = await createTestTenant(t.db, policy ? { policy } : {});
  await configureSlack(t.db, {
    tenantId: tenant.id, actor: adminOf(tenant),
    fields: { channel: CHANNEL, openOnlyFrom: options.openOnlyFrom ?? "critical", botToken: TOKEN, signingSecret: SIGNING_SECRET },
  });
  return tenant;
}

async function pendingRefund(tenant: TestTenant, amount = 5_000, requester: TestTenant["requester"] = tenant.requester, refundReason = "Duplicate charge") {
  const proposed = await proposeAction(t.db, {
    tenantId: tenant.id, requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: amount, reason: refundReason }, reason: "Customer asked",
  });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  return proposed;
}

/**
 * The tenant's Slack messages or notices, each as its outbox row reads in Slack's words (done:
 * nothing left to send), with what it is about (payload) and what was posted (state).
 */
async function slackRows(tenant: TestTenant, kind: "message" | "notice") {
  const rows = await listOutboxDeliveries(t.db, { tenantId: tenant.id, channels: [kind === "message" ? slackMessageChannel : slackNoticeChannel], take: 100 });
  return rows.map(({ payload, state, ...row }) => ({
    ...row, ...payload, ts: state.ts ?? null, ...(kind === "message" ? { channel: state.channel ?? null, shownRevision: state.shownRevision ?? null, shownStatus: state.shownStatus ?? null } : {}),
  }));
}

/** Pumps the Slack outbox as a worker would until nothing is due, waiting out retry delays. */
async function pumpUntilQuiet(rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await sealAllPending(t.db);
    await pumpSlack(t.db, { workerId: "slack-test" });
    const due = await t.db.outboxDelivery.count({ where: { channel: { in: ["slack_message", "slack_notice"] }, status: "pending" } });
    if (due === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error("the Slack outbox did not settle");
}

type Signed = { secret?: string; timestamp?: number };

/** A request as Slack sends it: form-encoded, signed with v0 over the raw body. */
function slackRequest(path: string, body: string, signed: Signed = {}): Request {
  const timestamp = String(signed.timestamp ?? Math.floor(Date.now() / 1000));
  return new Request(`https://console.example.test${path}`, {
    method: "POST", body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": slackSignature(signed.secret ?? SIGNING_SECRET, timestamp, body),
    },
  });
}

async function interaction(tenant: TestTenant, payload: Record<string, unknown>, signed: Signed = {}) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return interactionsRoute(slackRequest(`/api/integrations/slack/${tenant.slug}/interactions`, body, signed), { params: Promise.resolve({ tenant: tenant.slug }) });
}

async function command(tenant: TestTenant, slackUserId: string, text: string, signed: Signed = {}) {
  const body = new URLSearchParams({ command: "/countersign", text, user_id: slackUserId, team_id: TEAM, channel_id: CHANNEL }).toString();
  return commandsRoute(slackRequest(`/api/integrations/slack/${tenant.slug}/commands`, body, signed), { params: Promise.resolve({ tenant: tenant.slug }) });
}

/** Writes the unsigned callbacks counted so far (the route handlers' client is the app's). */
const flushUnsigned = () => unsignedSlackCallbackAuditFor(getDb()).flush();

/** Links the member's Slack user the verified way: a code from their account page, sent from Slack. */
async function link(tenant: TestTenant, user: TestUser, slackUserId: string) {
  const { code } = await startSlackLink(t.db, { tenantId: tenant.id, userId: user.id });
  const response = await command(tenant, slackUserId, `link ${code}`);
  expect(response.status).toBe(200);
  expect(((await response.json()) as { text: string }).text).toMatch(/^Linked/);
}

type Button = { action_id: string; value?: string; url?: string };

/** The buttons of the message Slack holds for an action (from its last chat.postMessage/update). */
function buttonsOf(actionId: string): { message: { channel: string; ts: string; text: string; blocks: unknown }; buttons: Button[] } {
  const message = [...slack.messages.values()].find((m) => JSON.stringify(m.blocks).includes(actionId));
  if (!message) throw new Error(`no Slack message for ${actionId}`);
  const blocks = message.blocks as Array<{ type: string; elements?: Button[] }>;
  return { message, buttons: blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements ?? []) };
}

function press(buttons: Button[], actionId: string, slackUserId: string, message: { channel: string; ts: string }) {
  const button = buttons.find((b) => b.action_id === actionId);
  if (!button) throw new Error(`no ${actionId} button`);
  return {
    type: "block_actions", user: { id: slackUserId, team_id: TEAM }, team: { id: TEAM }, trigger_id: "13345224609.738474920.8088930838d88f008e0",
    channel: { id: message.channel }, container: { type: "message", message_ts: message.ts, channel_id: message.channel },
    actions: [{ action_id: button.action_id, block_id: "b", value: button.value, type: "button", action_ts: "1" }],
  };
}

const callsSince = (start: number, method: string): SlackCall[] => slack.calls.slice(start).filter((c) => c.method === method);

/** An Approve forged from a message's Open button, pressed by a linked reviewer: refused (open_only, audited), no vote. */
async function expectForgedApproveRefused(tenant: TestTenant, actionId: string, message: { channel: string; ts: string }, open: Button) {
  await link(tenant, tenant.users.reviewer, "U0REVIEWER");
  const forged = { ...open, action_id: SLACK_ACTION_IDS.approve };
  expect((await interaction(tenant, press([forged], SLACK_ACTION_IDS.approve, "U0REVIEWER", message))).status).toBe(200);
  expect(await t.db.decision.count({ where: { actionId } })).toBe(0);
  expect((await refusalsOf(tenant)).map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([["slack.callback_refused", "open_only"]]);
}

/** The action's message once Slack has it: Open only, saying why. */
async function expectOpenOnly(actionId: string, why: string) {
  await pumpUntilQuiet();
  const { message, buttons } = buttonsOf(actionId);
  expect(buttons.map((b) => b.action_id)).toEqual([SLACK_ACTION_IDS.open]);
  expect(JSON.stringify(message.blocks)).toContain(why);
  return { message, open: buttons[0] };
}

/** A refund waiting for review in a Slack tenant whose reviewer linked U0REVIEWER, and its message's buttons. */
async function refundPostedToLinkedReviewer() {
  const tenant = await slackTenant();
  await link(tenant, tenant.users.reviewer, "U0REVIEWER");
  const proposed = await pendingRefund(tenant);
  await pumpUntilQuiet();
  return { tenant, proposed, ...buttonsOf(proposed.actionId) };
}

async function refusalsOf(tenant: TestTenant) {
  return t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: { in: ["slack.callback_refused", "decision.refused"] } }, orderBy: { id: "asc" } });
}

describe("Slack: pending actions are posted and kept up to date", () => {
  it("posts a pending action as Block Kit (tool, arguments, risk, expiry; Approve / Reject / Open bound to the revision and hash), retrying a failed post", async () => {
    const tenant = await slackTenant();
    const proposed = await pendingRefund(tenant);
    slack.failNext({ http: 500 }, { error: "internal_error" });
    const start = slack.calls.length;
    await pumpUntilQuiet();

    const posts = callsSince(start, "chat.postMessage");
    expect(posts).toHaveLength(3); // two failures, then one accepted post
    expect(posts.every((c) => c.token === TOKEN && c.args.channel === CHANNEL)).toBe(true);
    const { message, buttons } = buttonsOf(proposed.actionId);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain("refund_invoice");
    expect(text).toContain("INV-1044");
    expect(text).toContain("*Expires*");
    expect(buttons.map((b) => b.action_id)).toEqual([SLACK_ACTION_IDS.approve, SLACK_ACTION_IDS.reject, SLACK_ACTION_IDS.open]);
    for (const button of buttons) {
      expect(JSON.parse(button.value ?? "")).toEqual({ actionId: proposed.actionId, revision: 1, payloadHash: proposed.payloadHash });
    }
    expect(buttons[2].url).toBe(`https://console.example.test/actions/${proposed.actionId}`);
    const [row] = (await slackRows(tenant, "message")).filter((message) => message.actionId === proposed.actionId);
    expect(row).toMatchObject({ status: "done", ts: message.ts, channel: CHANNEL, shownRevision: 1, shownStatus: "pending" });
    // Nothing secret is in what was posted.
    expect(JSON.stringify(slack.calls)).not.toContain(SIGNING_SECRET);
  });

  it("an action decided in the console gets its message updated to the outcome, without buttons", async () => {
    const tenant = await slackTenant();
    const proposed = await pendingRefund(tenant);
    await pumpUntilQuiet();
    const start = slack.calls.length;
    await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "approve", note: null, reviewer: tenant.users.reviewer.member });
    await pumpUntilQuiet();
    expect(callsSince(start, "chat.postMessage")).toHaveLength(0);
    expect(callsSince(start, "chat.update")).toHaveLength(1);
    const { message, buttons } = buttonsOf(proposed.actionId);
    expect(buttons).toEqual([]);
    expect(message.text).toMatch(/^Approved: refund_invoice/);
    expect(JSON.stringify(message.blocks)).toContain(tenant.users.reviewer.email);
  });

  it("an action whose policy requires a passkey-signed approval gets Open only, and a forged Approve for it is refused", async () => {
    const tenant = await slackTenant({ signatureAtRisk: "low" });
    const proposed = await pendingRefund(tenant);
    const { message, open } = await expectOpenOnly(proposed.actionId, "passkey");
    await expectForgedApproveRefused(tenant, proposed.actionId, message, open);
  });

  it("an action whose arguments the message cannot show whole gets Open only, and a forged Approve for it is refused: a vote binds to what was seen", async () => {
    const tenant = await slackTenant({ openOnlyFrom: "critical" });
    // The reason is past the 80 characters a message shows of a value.
    const reason = `Duplicate charge on the March order; also ${"refund the shipping of every other order on this account ".repeat(2)}`;
    const proposed = await pendingRefund(tenant, 5_000, tenant.requester, reason);
    const { message, open } = await expectOpenOnly(proposed.actionId, "shows only part of what it would run");
    await expectForgedApproveRefused(tenant, proposed.actionId, message, open);
  });

  it("judges the Slack rule again in the vote's own transaction: a vote from Slack on a revision the message cannot show whole is refused there, whatever was checked before", async () => {
    const tenant = await slackTenant({ openOnlyFrom: "critical" });
    const proposed = await pendingRefund(tenant, 5_000, tenant.requester, "r".repeat(81));
    await link(tenant, tenant.users.reviewer, "U0DIRECT");
    const member = await slackMember(t.db, { tenantId: tenant.id, slackTeamId: TEAM, slackUserId: "U0DIRECT" });
    if (!member) throw new Error("not linked");
    const refused = await refusal(decideAction(t.db, {
      tenantId: tenant.id, actionId: proposed.actionId, reviewer: member, verdict: "approve", payloadHash: proposed.payloadHash, channel: "slack",
    }));
    expect(refused).toMatchObject({ code: "open_only", status: 403 });
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);
    const audited = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id, type: "decision.refused", actionId: proposed.actionId } });
    expect(audited.data).toMatchObject({ code: "open_only", channel: "slack" });
    // The same vote from the console counts.
    expect((await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, reviewer: tenant.users.reviewer.member, verdict: "approve", payloadHash: proposed.payloadHash })).status).toBe("approved");
  });

  it("lists arguments whole only when it shows every one exactly: at most six, keys and values unclipped, no whitespace run or backtick changed", () => {
    expect(argumentsSummary({ invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" }).whole).toBe(true);
    expect(argumentsSummary(null).whole).toBe(true);
    expect(argumentsSummary({ note: "x".repeat(80) }).whole).toBe(true);
    expect(argumentsSummary({ note: "x".repeat(81) }).whole).toBe(false);
    expect(argumentsSummary({ note: "one\n\ntwo" }).whole).toBe(false);
    expect(argumentsSummary({ note: "run `rm -rf`" }).whole).toBe(false);
    expect(argumentsSummary({ nested: { to: ["a@example.com"], cc: "x".repeat(80) } }).whole).toBe(false);
    expect(argumentsSummary(Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, i]))).whole).toBe(false);
    expect(argumentsSummary({ ["k".repeat(41)]: 1 }).whole).toBe(false);
    // Characters that end a code span, or hide what a key or value says.
    expect(argumentsSummary({ "`to": "a@example.com" }).whole).toBe(false);
    expect(argumentsSummary({ "to\u200b": "a@example.com" }).whole).toBe(false);
    expect(argumentsSummary({ to: "billing@acme.example\u202egro.live" }).whole).toBe(false);
    expect(argumentsSummary({ to: "billing@acme.example\u200b" }).whole).toBe(false);
  });

  it("an action at or above the configured risk gets Open only", async () => {
    const tenant = await slackTenant();
    const proposed = await pendingRefund(tenant, 500_000);
    const { riskLevel } = await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId }, select: { riskLevel: true } });
    // The threshold is read when the message is rendered: an admin lowers it to this action's level.
    await configureSlack(t.db, { tenantId: tenant.id, actor: adminOf(tenant), fields: { channel: CHANNEL, openOnlyFrom: riskLevel } });
    await expectOpenOnly(proposed.actionId, `Its risk is ${riskLevel}`);
  });
});

describe("Slack: the outbox and its settings", () => {
  it("loses nothing when a worker stops mid-send: another posts the message once the lease lapses, exactly once", async () => {
    const tenant = await slackTenant();
    const proposed = await pendingRefund(tenant);
    await sealAllPending(t.db);
    // A worker leases the row and dies before sending (its lease is made to lapse, as time would).
    await pumpSlack(t.db, { workerId: "crashed", limit: 0 });
    const [leased] = (await leaseOutbox(t.db, { channel: "slack_message", workerId: "crashed", leaseSeconds: 600, limit: 16, now: null, afterCrash: "retry" }))
      .map((row) => ({ ...row, wantedSeq: row.version }));
    expect(leased?.actionId).toBe(proposed.actionId);
    const start = slack.calls.length;
    await pumpSlack(t.db, { workerId: "other" });
    expect(callsSince(start, "chat.postMessage")).toHaveLength(0); // still leased
    await t.ownerDb.outboxDelivery.update({ where: { id: leased.id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
    await pumpUntilQuiet();
    await pumpUntilQuiet();
    expect(callsSince(start, "chat.postMessage").filter((c) => JSON.stringify(c.args.blocks).includes(proposed.actionId))).toHaveLength(1);
    // The crashed worker's late report changes nothing: it no longer holds the lease.
    expect(await recordOutboxAttempt(t.db, {
      ids: [leased.id], workerId: "crashed", version: leased.wantedSeq, outcome: "retry", error: "late", retryAfterSeconds: 1, state: null,
    })).toBeNull();
  });

  it("retries on Slack's own schedule, not the webhooks': a post Slack refused is sent again within Slack's retry base", async () => {
    // Webhooks wait an hour before their first retry; Slack's base (20 ms here) is its own.
    vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "3600000");
    try {
      const tenant = await slackTenant();
      const proposed = await pendingRefund(tenant);
      slack.failNext({ http: 500 });
      const start = slack.calls.length;
      await pumpUntilQuiet();
      expect(callsSince(start, "chat.postMessage")).toHaveLength(2);
      const [row] = (await slackRows(tenant, "message")).filter((message) => message.actionId === proposed.actionId);
      expect(row).toMatchObject({ status: "done", attempts: 2 });
    } finally {
      vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "20");
    }
  });

  it("keeps the bot token and signing secret sealed, refuses malformed settings, and keeps saved secrets when they are left blank", async () => {
    const tenant = await slackTenant();
    const row = await t.db.slackIntegration.findUniqueOrThrow({ where: { tenantId: tenant.id } });
    expect(row.secrets).not.toContain(TOKEN);
    expect(row.secrets).not.toContain(SIGNING_SECRET);
    const bad = async (fields: Record<string, unknown>) => (await refusal(configureSlack(t.db, { tenantId: tenant.id, actor: adminOf(tenant), fields }))).message;
    expect(await bad({ channel: "#approvals", openOnlyFrom: "high" })).toMatch(/channel's id/);
    expect(await bad({ channel: CHANNEL, openOnlyFrom: "high", botToken: "not-a-token", signingSecret: SIGNING_SECRET })).toMatch(/xoxb-/);
    expect(await bad({ channel: CHANNEL, openOnlyFrom: "high", botToken: TOKEN })).toMatch(/together/);
    const fresh = await createTestTenant(t.db);
    expect((await refusal(configureSlack(t.db, { tenantId: fresh.id, actor: adminOf(fresh), fields: { channel: CHANNEL, openOnlyFrom: "high" } }))).message).toMatch(/bot token and signing secret/);
    await configureSlack(t.db, { tenantId: tenant.id, actor: adminOf(tenant), fields: { channel: "C0OTHERCHAN", openOnlyFrom: "medium" } });
    expect(await t.db.slackIntegration.findUniqueOrThrow({ where: { tenantId: tenant.id } })).toMatchObject({ secrets: row.secrets, channel: "C0OTHERCHAN", openOnlyFrom: "medium" });
  });
});

describe("Slack: signed callbacks decide through the console's decision function", () => {
  it("a valid Approve from a linked reviewer records a decision by that member, and the message then shows the outcome", async () => {
    const { tenant, proposed, message, buttons } = await refundPostedToLinkedReviewer();
    const start = slack.calls.length;
    const response = await interaction(tenant, press(buttons, SLACK_ACTION_IDS.approve, "U0REVIEWER", message));
    expect(response.status).toBe(200);

    const decision = await t.db.decision.findFirstOrThrow({ where: { actionId: proposed.actionId } });
    expect(decision).toMatchObject({ reviewerId: tenant.users.reviewer.id, verdict: "approve", payloadHash: proposed.payloadHash });
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "approved" });
    const recorded = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id, type: "decision.recorded" } });
    expect(recorded).toMatchObject({ actorId: tenant.users.reviewer.id, data: expect.objectContaining({ channel: "slack" }) });
    const told = callsSince(start, "chat.postEphemeral");
    expect(told).toHaveLength(1);
    expect(told[0].args).toMatchObject({ user: "U0REVIEWER", channel: CHANNEL });
    expect(String(told[0].args.text)).toMatch(/^Recorded: you approved revision 1/);

    await pumpUntilQuiet();
    expect(buttonsOf(proposed.actionId).buttons).toEqual([]);
    expect(buttonsOf(proposed.actionId).message.text).toMatch(/^Approved/);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("Reject asks for a reason in a dialog; its submission rejects with that reason", async () => {
    const { tenant, proposed, message, buttons } = await refundPostedToLinkedReviewer();
    const start = slack.calls.length;
    expect((await interaction(tenant, press(buttons, SLACK_ACTION_IDS.reject, "U0REVIEWER", message))).status).toBe(200);
    const [opened] = callsSince(start, "views.open");
    const view = opened.args.view as { private_metadata: string; callback_id: string };
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);

    const submit = (reason: string) => interaction(tenant, {
      type: "view_submission", user: { id: "U0REVIEWER", team_id: TEAM }, team: { id: TEAM },
      view: { id: "V1", callback_id: view.callback_id, private_metadata: view.private_metadata, state: { values: { countersign_reason: { reason: { type: "plain_text_input", value: reason } } } } },
    });
    const response = await submit("Not a duplicate: the second charge is a different order");
    expect(response.status).toBe(200);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "rejected" });
    expect(await t.db.decision.findFirstOrThrow({ where: { actionId: proposed.actionId } })).toMatchObject({
      reviewerId: tenant.users.reviewer.id, verdict: "reject", note: "Not a duplicate: the second charge is a different order",
    });
  });

  it("an Approve of an action whose state changed since request is refused and audited, and the user told to re-read it; Reject still decides it", async () => {
    const { tenant, proposed, message, buttons } = await refundPostedToLinkedReviewer();
    // The back office refunds part of the invoice after the request: the message's buttons are unchanged.
    await t.db.invoice.updateMany({
      where: { tenantId: tenant.id, number: "INV-1044" }, data: { amountRefundedMinor: { increment: 1_000 }, version: { increment: 1 } },
    });
    const start = slack.calls.length;
    expect((await interaction(tenant, press(buttons, SLACK_ACTION_IDS.approve, "U0REVIEWER", message))).status).toBe(200);
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "pending", currentRevision: 1 });
    const [refused] = await refusalsOf(tenant);
    expect(refused).toMatchObject({ type: "decision.refused", actorId: tenant.users.reviewer.id, status: "state_changed" });
    expect(refused.data).toMatchObject({ code: "state_changed", channel: "slack", payloadHash: proposed.payloadHash });
    const told = callsSince(start, "chat.postEphemeral");
    expect(told).toHaveLength(1);
    expect(String(told[0].args.text)).toMatch(/^Not recorded: The state this action rests on changed since it was requested.*re-read the state/);
    expect(String(told[0].args.text)).toContain(`https://console.example.test/actions/${proposed.actionId}`);

    // A reviewer can still say no to it from Slack.
    const rejectStart = slack.calls.length;
    await interaction(tenant, press(buttons, SLACK_ACTION_IDS.reject, "U0REVIEWER", message));
    const view = callsSince(rejectStart, "views.open")[0].args.view as { private_metadata: string; callback_id: string };
    const submitted = await interaction(tenant, {
      type: "view_submission", user: { id: "U0REVIEWER", team_id: TEAM }, team: { id: TEAM },
      view: { id: "V2", callback_id: view.callback_id, private_metadata: view.private_metadata, state: { values: { countersign_reason: { reason: { type: "plain_text_input", value: "Already partly refunded" } } } } },
    });
    expect(submitted.status).toBe(200);
    expect(await submitted.text()).toBe("");
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "rejected" });
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("refuses and audits a bad signature, an old timestamp, an unlinked user, the requester's own user, a wrong role and a stale hash — recording no vote", async () => {
    const tenant = await slackTenant();
    // A reviewer who asked for the action themselves (through an agent task) may not decide it.
    const self = tenant.users.reviewer3;
    await link(tenant, self, "U0REQUESTER");
    await link(tenant, tenant.users.auditor, "U0AUDITOR");
    await link(tenant, tenant.users.reviewer2, "U0REVIEWER2");
    const proposed = await pendingRefund(tenant, 5_000, { type: "user", userId: self.id, label: self.email, roles: self.roles });
    await pumpUntilQuiet();
    const { message, buttons } = buttonsOf(proposed.actionId);
    const approve = (user: string) => press(buttons, SLACK_ACTION_IDS.approve, user, message);

    const badSignature = await interaction(tenant, approve("U0REVIEWER2"), { secret: "0".repeat(32) });
    expect(badSignature.status).toBe(401);
    await flushUnsigned();
    const oldTimestamp = await interaction(tenant, approve("U0REVIEWER2"), { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(oldTimestamp.status).toBe(401);
    await flushUnsigned();
    expect((await interaction(tenant, approve("U0STRANGER"))).status).toBe(200);
    expect((await interaction(tenant, approve("U0REQUESTER"))).status).toBe(200);
    expect((await interaction(tenant, approve("U0AUDITOR"))).status).toBe(200);
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);

    // A reviewer edits the action: the message's hash is now stale.
    await editAction(t.db, {
      tenantId: tenant.id, actionId: proposed.actionId, editor: tenant.users.reviewer.member, payloadHash: proposed.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 4_000, reason: "Duplicate charge" },
    });
    const start = slack.calls.length;
    expect((await interaction(tenant, approve("U0REVIEWER2"))).status).toBe(200);
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "pending", currentRevision: 2 });

    const refusals = (await refusalsOf(tenant)).map((e) => ({
      type: e.type, actorId: e.actorId, reason: (e.data as { reason?: string; code?: string }).reason ?? (e.data as { code?: string }).code,
      channel: (e.data as { channel?: string }).channel,
    }));
    expect(refusals).toEqual([
      { type: "slack.callback_refused", actorId: null, reason: "bad_signature", channel: undefined },
      { type: "slack.callback_refused", actorId: null, reason: "old_timestamp", channel: undefined },
      { type: "slack.callback_refused", actorId: null, reason: "unlinked_user", channel: undefined },
      { type: "decision.refused", actorId: self.id, reason: "self_approval", channel: "slack" },
      { type: "decision.refused", actorId: tenant.users.auditor.id, reason: "not_eligible", channel: "slack" },
      { type: "decision.refused", actorId: tenant.users.reviewer2.id, reason: "stale_hash", channel: "slack" },
    ]);
    expect(String(callsSince(start, "chat.postEphemeral")[0]?.args.text)).toMatch(/^Not recorded: The action changed/);

    // The stale message is updated to the current revision, whose buttons carry its hash.
    await pumpUntilQuiet();
    const current = await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId }, select: { payloadHash: true } });
    const updated = buttonsOf(proposed.actionId);
    expect(updated.message.ts).toBe(message.ts);
    expect(JSON.parse(updated.buttons[0].value ?? "")).toEqual({ actionId: proposed.actionId, revision: 2, payloadHash: current.payloadHash });
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("a flood of unsigned callbacks is counted, not logged one by one: one event per reason with the number of attempts, and no vote", async () => {
    const tenant = await slackTenant();
    await link(tenant, tenant.users.reviewer2, "U0REVIEWER2");
    const proposed = await pendingRefund(tenant, 5_000);
    await pumpUntilQuiet();
    const { message, buttons } = buttonsOf(proposed.actionId);
    const approve = press(buttons, SLACK_ACTION_IDS.approve, "U0REVIEWER2", message);
    const last = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id }, orderBy: { id: "desc" }, select: { id: true } });
    const newEvents = () => t.db.auditEvent.findMany({ where: { tenantId: tenant.id, id: { gt: last.id } }, orderBy: { id: "asc" } });

    const forged = await Promise.all(Array.from({ length: 25 }, () => interaction(tenant, approve, { secret: "2".repeat(32) })));
    expect(forged.map((r) => r.status)).toEqual(Array(25).fill(401));
    expect(await newEvents()).toEqual([]); // nothing written per request
    await flushUnsigned();

    const events = await newEvents();
    expect(events.map((e) => [e.type, (e.data as { reason: string; attempts?: number }).reason, (e.data as { attempts?: number }).attempts])).toEqual([
      ["slack.callback_refused", "bad_signature", 25],
    ]);
    expect(JSON.stringify(events[0].data)).not.toContain(SIGNING_SECRET);
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("refuses a body past 64 KB before reading it whole, with or without a Content-Length (413)", async () => {
    const tenant = await slackTenant();
    const params = { params: Promise.resolve({ tenant: tenant.slug }) };
    const url = `http://localhost/api/integrations/slack/${tenant.slug}/interactions`;
    // Chunked: no Content-Length; an endless stream of 16 KB chunks, counted as they are pulled.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
    });
    const chunked = await interactionsRoute(new Request(url, { method: "POST", body: endless, duplex: "half" } as RequestInit), params);
    expect(chunked.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    const declared = await interactionsRoute(new Request(url, { method: "POST", body: "a".repeat(70_000), headers: { "content-length": "70000" } }), params);
    expect(declared.status).toBe(413);
  });

  it("a member is linked only by a code from their account page sent from Slack; a wrong code, or a signature from another tenant's app, links nothing", async () => {
    const tenant = await slackTenant();
    const wrong = await command(tenant, "U0GUESSER", "link AAAA-BBBB");
    expect(((await wrong.json()) as { text: string }).text).toMatch(/unknown, used or expired/);
    const { code } = await startSlackLink(t.db, { tenantId: tenant.id, userId: tenant.users.reviewer.id });
    const forged = await command(tenant, "U0GUESSER", `link ${code}`, { secret: "1".repeat(32) });
    expect(forged.status).toBe(401);
    await flushUnsigned();
    expect(await t.db.slackUserLink.findFirstOrThrow({ where: { tenantId: tenant.id } })).toMatchObject({ slackUserId: null, linkedAt: null });

    const linked = await command(tenant, "U0REVIEWER", `link ${code}`);
    expect(((await linked.json()) as { text: string }).text).toMatch(/^Linked/);
    expect(await t.db.slackUserLink.findFirstOrThrow({ where: { tenantId: tenant.id } })).toMatchObject({ slackUserId: "U0REVIEWER", slackTeamId: TEAM, codeHash: null });
    // The code is used up.
    const again = await command(tenant, "U0OTHER", `link ${code}`);
    expect(((await again.json()) as { text: string }).text).toMatch(/unknown, used or expired/);
    const events = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: { startsWith: "slack." } }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.type, (e.data as { reason?: string }).reason ?? null])).toEqual([
      ["slack.configured", null], ["slack.callback_refused", "bad_link_code"], ["slack.callback_refused", "bad_signature"],
      ["slack.user_linked", null], ["slack.callback_refused", "bad_link_code"],
    ]);
    expect(events[3].actorId).toBe(tenant.users.reviewer.id);
  });

  it("a link code lapses ten minutes after it was issued by the database clock, the one its redemption checks; a new code replaces an unused one", async () => {
    const tenant = await slackTenant();
    const userId = tenant.users.reviewer2.id;
    const [{ before }] = await t.db.$queryRaw<Array<{ before: Date }>>`SELECT now() AS before`;
    const first = await startSlackLink(t.db, { tenantId: tenant.id, userId });
    const [{ after }] = await t.db.$queryRaw<Array<{ after: Date }>>`SELECT now() AS after`;
    // What the member is shown is what is stored: ten minutes from the database's now (stored to the millisecond).
    const stored = await t.db.slackUserLink.findUniqueOrThrow({ where: { tenantId_userId: { tenantId: tenant.id, userId } } });
    expect(stored.codeExpiresAt?.getTime()).toBe(first.expiresAt.getTime());
    expect(first.expiresAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + SLACK_LINK_CODE_TTL_SECONDS * 1000 - 1);
    expect(first.expiresAt.getTime()).toBeLessThanOrEqual(after.getTime() + SLACK_LINK_CODE_TTL_SECONDS * 1000 + 1);

    const second = await startSlackLink(t.db, { tenantId: tenant.id, userId });
    expect(await t.db.slackUserLink.count({ where: { tenantId: tenant.id, userId } })).toBe(1);
    const replaced = await command(tenant, "U0REVIEWER2", `link ${first.code}`);
    expect(((await replaced.json()) as { text: string }).text).toMatch(/unknown, used or expired/);

    // Past its expiry by the database clock: it links nothing.
    await t.db.$executeRaw`UPDATE "SlackUserLink" SET "codeExpiresAt" = clock_timestamp() - interval '1 millisecond' WHERE "tenantId" = ${tenant.id}::uuid AND "userId" = ${userId}::uuid`;
    const lapsed = await command(tenant, "U0REVIEWER2", `link ${second.code}`);
    expect(((await lapsed.json()) as { text: string }).text).toMatch(/unknown, used or expired/);
    expect(await t.db.slackUserLink.findUniqueOrThrow({ where: { tenantId_userId: { tenantId: tenant.id, userId } } })).toMatchObject({ slackUserId: null, linkedAt: null });

    const third = await startSlackLink(t.db, { tenantId: tenant.id, userId });
    const linked = await command(tenant, "U0REVIEWER2", `link ${third.code}`);
    expect(((await linked.json()) as { text: string }).text).toMatch(/^Linked/);
  });

  it("no link code is issued before an admin connects Slack, and nothing is stored", async () => {
    const tenant = await createTestTenant(t.db);
    const refused = await refusal(startSlackLink(t.db, { tenantId: tenant.id, userId: tenant.users.reviewer.id }));
    expect(refused).toMatchObject({ code: "slack_not_configured", status: 409 });
    expect(await t.db.slackUserLink.count({ where: { tenantId: tenant.id } })).toBe(0);
  });
});

describe("Slack: a link is a credential, held by the vote it carries", () => {
  const passwordChange = (user: TestUser) => changePassword(t.db, {
    userId: user.id, sessionId: randomUUID(), currentPassword: TEST_PASSWORD, newPassword: "a new password of some length",
    actor: { type: "user", id: user.id, label: user.email },
  });

  it("a password change unlinks the member's Slack user: that user's buttons no longer vote, and it is audited", async () => {
    const tenant = await slackTenant();
    const proposed = await pendingRefund(tenant);
    await pumpUntilQuiet();
    const { message, buttons } = buttonsOf(proposed.actionId);
    await link(tenant, tenant.users.reviewer, "U0STOLEN");
    await passwordChange(tenant.users.reviewer);

    expect(await t.db.slackUserLink.count({ where: { userId: tenant.users.reviewer.id, linkedAt: { not: null } } })).toBe(0);
    const changed = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id, type: "account.password_changed" } });
    expect(changed.data).toMatchObject({ slackUnlinked: true });
    expect((await interaction(tenant, press(buttons, SLACK_ACTION_IDS.approve, "U0STOLEN", message))).status).toBe(200);
    expect(await t.db.decision.count({ where: { actionId: proposed.actionId } })).toBe(0);
    expect((await refusalsOf(tenant)).map((e) => (e.data as { reason?: string }).reason)).toContain("unlinked_user");
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("a vote from a Slack user whose link is removed after it was read is refused in the vote's own transaction; an unlink under way is waited for", async () => {
    const tenant = await slackTenant();
    const first = await pendingRefund(tenant, 5_001);
    const second = await pendingRefund(tenant, 5_002);
    await link(tenant, tenant.users.reviewer, "U0RACER");
    const member = await slackMember(t.db, { tenantId: tenant.id, slackTeamId: TEAM, slackUserId: "U0RACER" });
    if (!member) throw new Error("not linked");
    const vote = (p: { actionId: string; payloadHash: string }) =>
      decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, reviewer: member, verdict: "approve", payloadHash: p.payloadHash, channel: "slack" });

    // The unlink (a password change's statement) under way when the vote reaches the link: the vote waits, then is refused.
    const racing = await whileHolding(t.url, [[`UPDATE "SlackUserLink" SET "linkedAt" = NULL, "slackTeamId" = NULL, "slackUserId" = NULL WHERE "userId" = $1`, [member.userId]]], async (waiters) => {
      const run = vote(first).then(() => null, (error: unknown) => error);
      await waiters(1);
      return { run };
    });
    expect(await racing.run).toMatchObject({ code: "slack_unlinked", status: 401 });
    // Committed before the vote began: refused too.
    expect(await refusal(vote(second))).toMatchObject({ code: "slack_unlinked" });
    expect(await t.db.decision.count({ where: { actionId: { in: [first.actionId, second.actionId] } } })).toBe(0);
    const refused = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: "decision.refused" } });
    expect(refused.map((e) => (e.data as { code: string }).code)).toEqual(["slack_unlinked", "slack_unlinked"]);
  });
});

describe("Slack: an escalation naming a channel is posted there once", () => {
  const ESCALATION_CHANNEL = "C0ESCALATE";

  /** Refunds wait for reviewers; after 30 minutes the rule chases admins (and, when given, a channel). */
  function escalating(channel?: string): Policy {
    return {
      ...DEFAULT_POLICY,
      tools: {
        ...DEFAULT_POLICY.tools,
        refund_invoice: {
          rules: [{
            id: "refund-escalating", effect: "require_approval", quorum: 1, eligibleRoles: ["reviewer"], ttlSeconds: 7200,
            escalate: { after: "30m", role: "admin", ...(channel ? { channel } : {}) }, reason: "Refunds move money.",
          }],
        },
      },
    };
  }

  /** A pending refund whose message is already posted, and the moment its escalation is due. */
  async function waiting(tenant: TestTenant) {
    const proposed = await pendingRefund(tenant);
    await pumpUntilQuiet();
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: proposed.actionId, revision: 1 }, select: { createdAt: true } });
    return { proposed, due: new Date(revision.createdAt.getTime() + 30 * 60 * 1000) };
  }

  const postsTo = (start: number, channel: string) => callsSince(start, "chat.postMessage").filter((c) => c.args.channel === channel);
  const heldIn = (channel: string) => [...slack.messages.values()].filter((m) => m.channel === channel);

  it("posts one Block Kit notice to the rule's channel (waiting time, role, tool, summary, risk, expiry; Open only), even with two workers and a re-read log", async () => {
    const tenant = await slackTenant({ policy: escalating(ESCALATION_CHANNEL) });
    const { proposed, due } = await waiting(tenant);
    const start = slack.calls.length;
    expect(await sweepActionReminders(t.db, { now: due })).toBe(1);
    await sealAllPending(t.db);

    // Two workers, each with its own connection pool, pump at the same moment, twice.
    const [a, b] = [createDb(t.url, { max: 4 }), createDb(t.url, { max: 4 })];
    try {
      for (let round = 0; round < 2; round++) await Promise.all([pumpSlack(a, { workerId: "slack-a" }), pumpSlack(b, { workerId: "slack-b" })]);
    } finally {
      await Promise.all([a.$disconnect(), b.$disconnect()]);
    }
    await pumpUntilQuiet();
    // The log read again from the start queues no second notice: it is unique per escalation's leaf.
    await t.ownerDb.outboxCursor.updateMany({ where: { tenantId: tenant.id, channel: { in: ["slack_message", "slack_notice"] } }, data: { cursorSeq: 0 } });
    await pumpUntilQuiet();

    const posts = postsTo(start, ESCALATION_CHANNEL);
    expect(posts).toHaveLength(1);
    expect(posts[0].token).toBe(TOKEN);
    const [notice] = heldIn(ESCALATION_CHANNEL);
    const { riskLevel, preview } = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: proposed.actionId, revision: 1 }, select: { riskLevel: true, preview: true } });
    expect(notice.text).toBe(`Waiting 30 minutes for admin: refund_invoice (risk ${riskLevel})`);
    const text = JSON.stringify(notice.blocks);
    const summary = (preview as { summary: string }).summary;
    for (const part of ["Waiting 30 minutes for admin", "refund_invoice", summary, `*Risk*\\n${riskLevel}`, "*Expires*"]) expect(text).toContain(part);
    const blocks = notice.blocks as Array<{ type: string; elements?: Button[] }>;
    const buttons = blocks.filter((block) => block.type === "actions").flatMap((block) => block.elements ?? []);
    expect(buttons.map((button) => [button.action_id, button.url])).toEqual([[SLACK_ACTION_IDS.open, `https://console.example.test/actions/${proposed.actionId}`]]);
    expect(text).not.toContain(SLACK_ACTION_IDS.approve);
    expect(text).not.toContain(SLACK_ACTION_IDS.reject);
    // The reviewers' message in the configured channel is still the one post, with its buttons.
    expect(postsTo(start, CHANNEL)).toHaveLength(0);
    expect(buttonsOf(proposed.actionId).buttons.map((button) => button.action_id)).toContain(SLACK_ACTION_IDS.approve);
    expect(await slackRows(tenant, "notice")).toEqual([
      expect.objectContaining({ actionId: proposed.actionId, channel: ESCALATION_CHANNEL, role: "admin", afterSeconds: 1800, status: "done", ts: notice.ts, lastError: null }),
    ]);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("an escalation without a channel, or in a tenant without Slack, posts and queues nothing", async () => {
    const tenant = await slackTenant({ policy: escalating() });
    const { due } = await waiting(tenant);
    const unconnected = await createTestTenant(t.db, { policy: escalating(ESCALATION_CHANNEL) });
    const other = await pendingRefund(unconnected);
    const start = slack.calls.length;
    expect(await sweepActionReminders(t.db, { now: due })).toBe(1);
    const otherRevision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: other.actionId }, select: { createdAt: true } });
    expect(await sweepActionReminders(t.db, { now: new Date(otherRevision.createdAt.getTime() + 30 * 60 * 1000) })).toBe(1);
    await pumpUntilQuiet();

    expect(await t.db.auditEvent.count({ where: { tenantId: { in: [tenant.id, unconnected.id] }, type: "action.escalated" } })).toBe(2);
    expect(slack.calls.slice(start)).toEqual([]);
    expect((await slackRows(tenant, "notice")).length + (await slackRows(unconnected, "notice")).length).toBe(0);
  });

  it("a failing chat.postMessage is retried and the notice posted once", async () => {
    const tenant = await slackTenant({ policy: escalating(ESCALATION_CHANNEL) });
    const { due } = await waiting(tenant);
    const before = heldIn(ESCALATION_CHANNEL).length;
    await sweepActionReminders(t.db, { now: due });
    slack.failNext({ http: 500 }, { error: "internal_error" });
    const start = slack.calls.length;
    await pumpUntilQuiet();

    expect(postsTo(start, ESCALATION_CHANNEL)).toHaveLength(3); // two failures, then one accepted post
    expect(heldIn(ESCALATION_CHANNEL).length - before).toBe(1);
    expect((await slackRows(tenant, "notice"))[0]).toMatchObject({ status: "done", attempts: 3, lastError: null });
  });

  it("a notice whose retries ended is listed to admins beside failed messages, and an admin sends it again (audited); a former admin may not", async () => {
    const tenant = await slackTenant({ policy: escalating(ESCALATION_CHANNEL) });
    const { proposed, due } = await waiting(tenant);
    expect(await sweepActionReminders(t.db, { now: due })).toBe(1);
    await sealAllPending(t.db);
    const start = slack.calls.length;
    slack.failNext({ http: 500 });
    await pumpSlack(t.db, { workerId: "slack-test" });
    // Its window closes before the next attempt, which fails too: failed for good.
    const past = new Date(Date.now() - 1000);
    await t.db.outboxDelivery.updateMany({ where: { tenantId: tenant.id, channel: "slack_notice" }, data: { giveUpAt: past, nextAttemptAt: past } });
    slack.failNext({ http: 500 });
    await pumpSlack(t.db, { workerId: "slack-test" });
    expect(postsTo(start, ESCALATION_CHANNEL)).toHaveLength(2);

    const failed = await listFailedSlackDeliveries(t.db, tenant.id);
    expect(failed).toEqual([expect.objectContaining({ kind: "notice", actionId: proposed.actionId, channel: ESCALATION_CHANNEL })]);
    const formerAdmin = { type: "user" as const, id: tenant.users.reviewer.id, label: tenant.users.reviewer.email };
    expect(await refusal(resendSlackDelivery(t.db, { tenantId: tenant.id, id: failed[0].id, actor: formerAdmin }))).toMatchObject({ status: 403 });
    await resendSlackDelivery(t.db, { tenantId: tenant.id, id: failed[0].id, actor: adminOf(tenant) });
    await pumpUntilQuiet();
    expect(postsTo(start, ESCALATION_CHANNEL)).toHaveLength(3);
    expect(heldIn(ESCALATION_CHANNEL).filter((m) => JSON.stringify(m.blocks).includes(proposed.actionId))).toHaveLength(1);
    expect(await listFailedSlackDeliveries(t.db, tenant.id)).toEqual([]);
    expect((await slackRows(tenant, "notice"))[0]).toMatchObject({ status: "done", lastError: null });
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "slack.resent" } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "slack.resend_refused" } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("an action decided before its notice is sent is not announced as waiting", async () => {
    const tenant = await slackTenant({ policy: escalating(ESCALATION_CHANNEL) });
    const { proposed, due } = await waiting(tenant);
    expect(await sweepActionReminders(t.db, { now: due })).toBe(1);
    await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "approve", note: null, reviewer: tenant.users.reviewer.member });
    const start = slack.calls.length;
    await pumpUntilQuiet();
    expect(postsTo(start, ESCALATION_CHANNEL)).toEqual([]);
    expect((await slackRows(tenant, "notice"))[0]).toMatchObject({ status: "done", ts: null, lastError: expect.stringMatching(/no longer waits/) });
  });
});

describe("Slack configured by someone who is no longer an admin", () => {
  it("connects nothing and changes nothing (refused 403, audited as slack.configure_refused)", async () => {
    const tenant = await slackTenant();
    const before = await t.db.slackIntegration.findUniqueOrThrow({ where: { tenantId: tenant.id } });
    const fresh = await createTestTenant(t.db);
    // The reviewer stands for an admin demoted after their request passed the boundary.
    const formerAdmin = (of: TestTenant) => ({ type: "user" as const, id: of.users.reviewer.id, label: of.users.reviewer.email });
    const forbidden = { code: "forbidden", status: 403, message: "Only admins may connect Slack, and you are no longer an admin here." };
    const fields = { channel: "C0PLANTED1", openOnlyFrom: "low", botToken: "xoxb-planted-token", signingSecret: "0123456789abcdef0123" };
    expect(await refusal(configureSlack(t.db, { tenantId: tenant.id, actor: formerAdmin(tenant), fields }))).toMatchObject(forbidden);
    expect(await refusal(configureSlack(t.db, { tenantId: tenant.id, actor: formerAdmin(tenant), fields: { channel: "C0PLANTED1", openOnlyFrom: "low" } }))).toMatchObject(forbidden);
    expect(await refusal(configureSlack(t.db, { tenantId: fresh.id, actor: formerAdmin(fresh), fields }))).toMatchObject(forbidden);

    expect(await t.db.slackIntegration.findUniqueOrThrow({ where: { tenantId: tenant.id } })).toEqual(before);
    expect(await t.db.slackIntegration.findUnique({ where: { tenantId: fresh.id } })).toBeNull();
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "slack.configured" } })).toBe(1);
    for (const [of, count] of [[tenant, 2], [fresh, 1]] as const) {
      const refused = await t.db.auditEvent.findMany({ where: { tenantId: of.id, type: "slack.configure_refused" } });
      expect(refused).toHaveLength(count);
      expect(refused.every((e) => e.actorId === of.users.reviewer.id && (e.data as { reason: string }).reason === "not_admin")).toBe(true);
    }
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });
});
