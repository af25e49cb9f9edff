import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { refusal } from "@/tests/refusal";
import { createDb } from "@/lib/db/client";
import { decideAction } from "@/lib/approvals/decide-action";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { pumpReviewerEmails } from "@/lib/notifications/reviewer-email-channel";
import { redactSmtpSecrets } from "@/lib/notifications/send-smtp";
import { setEmailMode } from "@/lib/notifications/set-email-mode";
import { sweepActionReminders } from "@/lib/notifications/sweep-action-reminders";
import { setMemberRoles } from "@/lib/members/set-member-roles";
import { registerWebhookEndpoint } from "@/lib/webhooks/register-webhook-endpoint";
import { pumpWebhooks } from "@/lib/webhooks/webhook-channel";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { editAction } from "@/lib/approvals/edit-action";
import { SoftAuthenticator } from "@/tests/soft-authenticator";
import { setUpTestDatabase } from "@/tests/fixtures";
import { finishPasskeyRegistration } from "@/lib/passkeys/finish-passkey-registration";
import { listPasskeys } from "@/lib/passkeys/list-passkeys";
import { relyingPartyOf } from "@/lib/passkeys/relying-party";
import { removePasskey } from "@/lib/passkeys/remove-passkey";
import { startSession } from "@/lib/auth/start-session";
import { startPasskeyRegistration } from "@/lib/passkeys/start-passkey-registration";
import { startSignedApproval } from "@/lib/passkeys/start-signed-approval";

type Mail = { to: string[]; subject: string; text: string; messageId: string };

/** Decodes a quoted-printable body (soft line breaks, =XX bytes as UTF-8). */
function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === "=" && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

function parseMail(raw: string, to: string[]): Mail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const body = raw.slice(split + 4);
  const text = /quoted-printable/i.test(header("Content-Transfer-Encoding")) ? decodeQuotedPrintable(body) : body;
  return { to, subject: header("Subject"), text: text.replace(/\r\n/g, "\n"), messageId: header("Message-ID") };
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that refuses the first `failFirst` messages with a
 * 451; `beforeAccept` runs once a message has arrived whole, before the server answers it.
 */
async function startSmtp(options: { failFirst?: number; beforeAccept?: () => void } = {}) {
  const mails: Mail[] = [];
  let refused = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refused < (options.failFirst ?? 0)) {
          refused++;
          callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
          return;
        }
        mails.push(parseMail(Buffer.concat(chunks).toString("utf8"), session.envelope.rcptTo.map((r) => r.address)));
        options.beforeAccept?.();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, refused: () => refused, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const t = setUpTestDatabase();
const DIGEST_MINUTES = 60;
let smtp: Awaited<ReturnType<typeof startSmtp>> | null = null;

beforeAll(async () => {
  vi.stubEnv("NEXTAUTH_URL", "https://console.example.test");
  vi.stubEnv("REVIEWER_EMAIL_RETRY_BASE_MS", "20");
  vi.stubEnv("REVIEWER_EMAIL_TIMEOUT_MS", "5000");
  vi.stubEnv("REVIEWER_EMAIL_DIGEST_MINUTES", String(DIGEST_MINUTES));
});
afterEach(async () => {
  await smtp?.close();
  smtp = null;
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

async function smtpServer(options: { failFirst?: number; beforeAccept?: () => void } = {}) {
  smtp = await startSmtp(options);
  vi.stubEnv("SMTP_URL", smtp.url);
  return smtp;
}

/** A policy whose refunds escalate to admins after 30 minutes and warn 15 minutes before their 2-hour window closes. */
const REMINDING: Policy = {
  ...DEFAULT_POLICY,
  tools: {
    ...DEFAULT_POLICY.tools,
    refund_invoice: {
      rules: [
        { id: "refund-over-limit", when: "args.amount_minor > 5000000", effect: "deny", reason: "Too large to refund here." },
        {
          id: "refund-reminding", effect: "require_approval", quorum: 1, eligibleRoles: ["reviewer"], ttlSeconds: 7200,
          escalate: { after: "30m", role: "admin", channel: "C0APPROVALS" }, warnBeforeExpiry: "15m",
          reason: "Refunds move money.",
        },
      ],
    },
  },
};

async function pendingRefund(tenant: TestTenant, amountMinor = 5_000) {
  const proposed = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Duplicate charge" }, reason: "Customer asked",
  });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  return proposed;
}

/** The tenant's reviewer-email outbox rows (oldest ask first), each with what its payload says (action, member, reason). */
async function reviewerEmails(where: { tenantId: string; status?: string; userId?: string | { in: string[] } }) {
  const rows = await t.db.outboxDelivery.findMany({
    where: { channel: "reviewer_email", tenantId: where.tenantId, ...(where.status ? { status: where.status } : {}) }, orderBy: [{ auditSeq: "asc" }, { id: "asc" }],
  });
  const users = where.userId === undefined ? null : typeof where.userId === "string" ? [where.userId] : where.userId.in;
  return rows
    .map((row) => ({ ...row, ...(row.payload as { actionId: string; userId: string; reason: string; revision: number; toAddress: string; mode: string }) }))
    .filter((row) => users === null || users.includes(row.userId));
}

/**
 * Pumps until nothing of the tenant's is due or retrying, waiting out retry delays; a row never
 * tried counts only once due (a digest's falls due at the period's end, not as a retry).
 */
async function pumpUntilQuiet(tenant: TestTenant, options: { now?: Date; workerId?: string } = {}) {
  for (let round = 0; round < 40; round++) {
    await sealAllPending(t.db);
    await pumpReviewerEmails(t.db, { workerId: options.workerId ?? "worker-a", now: options.now });
    const clock = (options.now ?? new Date()).getTime();
    const due = (await reviewerEmails({ tenantId: tenant.id, status: "pending" }))
      .filter((row) => row.nextAttemptAt.getTime() <= clock || (row.attempts > 0 && row.nextAttemptAt.getTime() <= clock + 10_000)).length;
    if (due === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  throw new Error("the reviewer-email outbox did not settle");
}

/** The pumps once the default digest period (60 minutes) has ended: digests go out. */
async function pumpAfterDigestPeriod(tenant: TestTenant) {
  const afterPeriod = new Date(Date.now() + 61 * 60_000);
  await pumpUntilQuiet(tenant, { now: afterPeriod });
  await pumpUntilQuiet(tenant, { now: afterPeriod });
}

/**
 * Digests fall due at the end of each period (DIGEST_MINUTES, aligned to the clock). A test that
 * expects no digest yet starts clear of the period's end, so it cannot pass during the test.
 */
async function clearOfDigestBoundary(): Promise<void> {
  const periodMs = DIGEST_MINUTES * 60_000;
  const untilBoundary = periodMs - (Date.now() % periodMs);
  if (untilBoundary < 20_000) await new Promise((resolve) => setTimeout(resolve, untilBoundary + 500));
}

const mailsTo = (mails: Mail[], email: string) => mails.filter((mail) => mail.to.includes(email));
const actionLink = (actionId: string) => `https://console.example.test/actions/${actionId}`;

describe("reviewer emails", () => {
  it("emails each eligible reviewer once with what, risk, amount, expiry and the action's link (never a decision link); not the requester, not another role", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const proposed = await pendingRefund(tenant, 12_345);
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant); // a second pass adds and sends nothing

    const { reviewer, reviewer2, reviewer3, requester, auditor, admin } = tenant.users;
    for (const member of [reviewer, reviewer2, reviewer3]) {
      const mails = mailsTo(server.mails, member.email);
      expect(mails, member.email).toHaveLength(1);
      const [mail] = mails;
      expect(mail.subject).toContain("refund_invoice");
      expect(mail.subject).toMatch(/Review: refund_invoice - Refund 123\.45 USD on INV-1044 - \w+ risk/);
      expect(mail.text).toMatch(/What: +refund_invoice: Refund 123\.45 USD on INV-1044/);
      expect(mail.text).toMatch(/Risk: +(low|medium|high|critical)/);
      expect(mail.text).toMatch(/Amount: +123\.45 USD/);
      expect(mail.text).toContain(`Expires:   ${proposed.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`);
      expect(mail.text).toContain(`Open:      ${actionLink(proposed.actionId)}`);
      // The only link is the action page: no approve/reject link, no token.
      expect(mail.text.match(/https?:\/\/\S+/g)).toEqual([actionLink(proposed.actionId)]);
      expect(mail.text.toLowerCase()).not.toMatch(/approve\?|\/approve|verdict=|token=/);
      expect(mail.messageId).toMatch(/^<reviewer-[0-9a-f-]+@countersign>$/);
    }
    for (const member of [requester, auditor, admin]) expect(mailsTo(server.mails, member.email), member.email).toHaveLength(0);
    expect(server.mails).toHaveLength(3);
    expect((await reviewerEmails({ tenantId: tenant.id, status: "sent" })).length).toBe(3);
  });

  it("an approved action reopened because its approver lost their role emails the reviewers who have not voted, once, saying why", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const proposed = await pendingRefund(tenant, 2_500);
    await pumpUntilQuiet(tenant);
    const { reviewer, reviewer2, reviewer3, admin } = tenant.users;
    expect(await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, verdict: "approve", payloadHash: proposed.payloadHash, reviewer: reviewer.member }))
      .toMatchObject({ status: "approved" });
    const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: reviewer.id } });
    await setMemberRoles(t.db, { tenantId: tenant.id, membershipId: membership.id, roles: ["requester"], actor: { type: "user", id: admin.id, label: admin.email } });
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant);

    for (const member of [reviewer2, reviewer3]) {
      const again = mailsTo(server.mails, member.email).filter((mail) => mail.subject.includes("Review again"));
      expect(again, member.email).toHaveLength(1);
      expect(again[0].text).toMatch(/an approval of it no longer counts .* so it waits for review again/);
      expect(again[0].text).toContain(`Open:      ${actionLink(proposed.actionId)}`);
    }
    // The member whose approval stopped counting is not asked again (and is no longer a reviewer).
    expect(mailsTo(server.mails, reviewer.email).filter((mail) => mail.subject.includes("Review again"))).toHaveLength(0);
  });

  it("an action reopened a second time at the same revision asks its reviewers again; two reopenings before one pass ask once", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer, reviewer2, reviewer3, admin } = tenant.users;
    const approveAndDemote = async (actionId: string, payloadHash: string, member: typeof reviewer) => {
      expect(await decideAction(t.db, { tenantId: tenant.id, actionId, verdict: "approve", payloadHash, reviewer: member.member }))
        .toMatchObject({ status: "approved" });
      const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: member.id } });
      await setMemberRoles(t.db, { tenantId: tenant.id, membershipId: membership.id, roles: ["requester"], actor: { type: "user", id: admin.id, label: admin.email } });
    };
    const againTo = (member: { email: string }, actionId: string) =>
      mailsTo(server.mails, member.email).filter((mail) => mail.subject.includes("Review again") && mail.text.includes(actionLink(actionId)));

    // Pumped after each reopening: two asks, two emails.
    const first = await pendingRefund(tenant, 2_500);
    await pumpUntilQuiet(tenant);
    await approveAndDemote(first.actionId, first.payloadHash, reviewer);
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant);
    expect(againTo(reviewer3, first.actionId)).toHaveLength(1);
    await approveAndDemote(first.actionId, first.payloadHash, reviewer2);
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant);
    expect(againTo(reviewer3, first.actionId)).toHaveLength(2);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: first.actionId } })).toMatchObject({ status: "pending", currentRevision: 1 });

    // Both reopenings before one pass: one ask.
    const tenant2 = await createTestTenant(t.db);
    const second = await pendingRefund(tenant2, 2_500);
    await pumpUntilQuiet(tenant2);
    const members = tenant2.users;
    for (const member of [members.reviewer, members.reviewer2]) {
      expect(await decideAction(t.db, { tenantId: tenant2.id, actionId: second.actionId, verdict: "approve", payloadHash: second.payloadHash, reviewer: member.member }))
        .toMatchObject({ status: "approved" });
      const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant2.id, userId: member.id } });
      await setMemberRoles(t.db, { tenantId: tenant2.id, membershipId: membership.id, roles: ["requester"], actor: { type: "user", id: members.admin.id, label: members.admin.email } });
    }
    await pumpUntilQuiet(tenant2);
    await pumpUntilQuiet(tenant2);
    expect(againTo(members.reviewer3, second.actionId)).toHaveLength(1);
  });

  it("a digest lists an action asked about more than once in its period once, as its latest ask puts it", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer, reviewer2, reviewer3, admin } = tenant.users;
    await setEmailMode(t.db, { tenantId: tenant.id, userId: reviewer3.id, mode: "digest", actor: { type: "user", id: reviewer3.id, label: reviewer3.email } });
    const proposed = await pendingRefund(tenant, 2_500);
    await pumpUntilQuiet(tenant);
    for (const member of [reviewer, reviewer2]) {
      await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, verdict: "approve", payloadHash: proposed.payloadHash, reviewer: member.member });
      const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: member.id } });
      await setMemberRoles(t.db, { tenantId: tenant.id, membershipId: membership.id, roles: ["requester"], actor: { type: "user", id: admin.id, label: admin.email } });
      await pumpUntilQuiet(tenant);
    }
    // Asked three times (proposed, reopened, reopened again) before the period ends.
    expect((await reviewerEmails({ tenantId: tenant.id, userId: reviewer3.id })).length).toBe(3);
    await pumpAfterDigestPeriod(tenant);
    const digests = mailsTo(server.mails, reviewer3.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toContain("1 action waiting for your review");
    expect(digests[0].text.split(actionLink(proposed.actionId))).toHaveLength(2);
  });

  it("an action reopened because an approver removed the passkey that signed emails that approver too: they may approve it again", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db, { policy: { ...DEFAULT_POLICY, defaults: { ...DEFAULT_POLICY.defaults, signatureAtRisk: "high" } } });
    const origin = "https://console.countersign.test";
    const relyingParty = relyingPartyOf([origin]);
    const { reviewer, reviewer2, reviewer3 } = tenant.users;
    const signers = new Map<string, { authenticator: SoftAuthenticator; sessionId: string }>();
    for (const member of [reviewer, reviewer2]) {
      const { id: sessionId } = await startSession(t.db, { userId: member.id, method: "credentials", clientAddress: null, userAgent: null });
      const signer = { authenticator: new SoftAuthenticator(origin), sessionId };
      const options = await startPasskeyRegistration(t.db, { tenantId: tenant.id, user: { id: member.id, email: member.email, name: member.email }, sessionId: signer.sessionId, relyingParty });
      await finishPasskeyRegistration(t.db, {
        owner: { id: member.id, email: member.email, sessionId: signer.sessionId, tenantIds: [tenant.id] }, name: "Laptop",
        response: signer.authenticator.register(options), relyingParty,
      });
      signers.set(member.id, signer);
    }
    const proposed = await proposeAction(t.db, {
      tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 1_150_000, reason: "Signed approval" },
    });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    for (const member of [reviewer, reviewer2]) {
      const { authenticator, sessionId } = signers.get(member.id)!;
      const started = await startSignedApproval(t.db, { tenantId: tenant.id, userId: member.id, sessionId, actionId: proposed.actionId, payloadHash: proposed.payloadHash, relyingParty });
      await decideAction(t.db, {
        tenantId: tenant.id, actionId: proposed.actionId, verdict: "approve", payloadHash: proposed.payloadHash, reviewer: member.member,
        assertion: { sessionId, response: authenticator.assert(started.options.challenge), relyingParty },
      });
    }
    await pumpUntilQuiet(tenant);
    const [laptop] = await listPasskeys(t.db, reviewer2.id);
    await removePasskey(t.db, { owner: { id: reviewer2.id, email: reviewer2.email, tenantIds: [tenant.id] }, passkeyId: laptop.id });
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant);

    const again = (member: { email: string }) => mailsTo(server.mails, member.email).filter((mail) => mail.subject.includes("Review again"));
    expect(again(reviewer2)).toHaveLength(1);
    expect(again(reviewer3)).toHaveLength(1);
    // The approver whose approval still counts is not asked again.
    expect(again(reviewer)).toHaveLength(0);
  });

  it("sends nothing for actions that run or are refused without review", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const allowed = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: "lookup_customer", args: { customer_ref: "CUST-001" }, reason: "Look up" });
    expect(allowed.state).toBe("allowed");
    const denied = await proposeAction(t.db, {
      tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Too much" }, reason: "Customer asked",
    });
    expect(denied.state).toBe("denied");
    await pumpUntilQuiet(tenant);
    expect((await reviewerEmails({ tenantId: tenant.id })).length).toBe(0);
    expect(server.mails.filter((mail) => mail.to.some((to) => to.endsWith(tenant.users.reviewer.email.split("@")[1])))).toHaveLength(0);
  });

  it("keeps emails in the outbox table while SMTP_URL is not set, and sends them once it is", async () => {
    vi.stubEnv("SMTP_URL", "");
    const tenant = await createTestTenant(t.db);
    const proposed = await pendingRefund(tenant);
    await sealAllPending(t.db);
    await pumpReviewerEmails(t.db, { workerId: "no-smtp" });
    const queued = await reviewerEmails({ tenantId: tenant.id });
    expect(queued.map((row) => row.status)).toEqual(["pending", "pending", "pending"]);
    expect(queued.every((row) => row.actionId === proposed.actionId && row.reason === "pending" && row.attempts === 0)).toBe(true);
    const server = await smtpServer();
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, tenant.users.reviewer.email)).toHaveLength(1);
  });

  it("a digest is sent only for what its member is still asked: not after they lost the role, not for an action they have voted on since", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer2, reviewer3, admin } = tenant.users;
    for (const member of [reviewer2, reviewer3]) {
      await setEmailMode(t.db, { tenantId: tenant.id, userId: member.id, mode: "digest", actor: { type: "user", id: member.id, label: member.email } });
    }
    // Above the two-approver threshold: one vote leaves each still pending.
    const actions = [await pendingRefund(tenant, 150_000), await pendingRefund(tenant, 160_000)];
    await pumpUntilQuiet(tenant);
    expect((await reviewerEmails({ tenantId: tenant.id, userId: { in: [reviewer2.id, reviewer3.id] }, status: "pending" })).length).toBe(4);

    // Before the period ends: reviewer2 is offboarded, reviewer3 approves the first.
    const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: reviewer2.id } });
    await setMemberRoles(t.db, { tenantId: tenant.id, membershipId: membership.id, roles: ["requester"], actor: { type: "user", id: admin.id, label: admin.email } });
    expect(await decideAction(t.db, { tenantId: tenant.id, actionId: actions[0].actionId, verdict: "approve", payloadHash: actions[0].payloadHash, reviewer: reviewer3.member }))
      .toMatchObject({ status: "pending" });
    await pumpAfterDigestPeriod(tenant);

    expect(mailsTo(server.mails, reviewer2.email)).toHaveLength(0);
    const digests = mailsTo(server.mails, reviewer3.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].text).toContain(actionLink(actions[1].actionId));
    expect(digests[0].text).not.toContain(actionLink(actions[0].actionId));
    const statuses = async (userId: string) =>
      (await reviewerEmails({ tenantId: tenant.id, userId })).map((row) => row.status);
    expect(await statuses(reviewer2.id)).toEqual(["skipped", "skipped"]);
    expect(await statuses(reviewer3.id)).toEqual(["skipped", "sent"]);
  });

  it("a digest member gets one email per period listing the actions still waiting; an immediate member one per action", async () => {
    await clearOfDigestBoundary();
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer, reviewer2 } = tenant.users;
    const actor = { type: "user" as const, id: reviewer2.id, label: reviewer2.email };
    expect(await setEmailMode(t.db, { tenantId: tenant.id, userId: reviewer2.id, mode: "digest", actor })).toEqual({ mode: "digest", changed: true });
    const actions = [await pendingRefund(tenant, 1_000), await pendingRefund(tenant, 2_000), await pendingRefund(tenant, 3_000)];
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, reviewer.email)).toHaveLength(3);
    expect(mailsTo(server.mails, reviewer2.email)).toHaveLength(0); // not before the period ends

    // One is decided before the digest goes out: the digest lists the two still waiting.
    await decideAction(t.db, { tenantId: tenant.id, actionId: actions[0].actionId, payloadHash: actions[0].payloadHash, verdict: "reject", note: "no", reviewer: reviewer.member });
    await pumpAfterDigestPeriod(tenant);
    const digests = mailsTo(server.mails, reviewer2.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toContain("2 actions waiting for your review");
    expect(digests[0].text).toContain(actionLink(actions[1].actionId));
    expect(digests[0].text).toContain(actionLink(actions[2].actionId));
    expect(digests[0].text).not.toContain(actionLink(actions[0].actionId));
    expect(digests[0].text).toMatch(/Amount: +20\.00 USD/);
    expect(digests[0].text).toMatch(/Amount: +30\.00 USD/);
    const rows = await reviewerEmails({ tenantId: tenant.id, userId: reviewer2.id });
    expect(rows.map((row) => row.status)).toEqual(["skipped", "sent", "sent"]);
    expect(mailsTo(server.mails, reviewer.email)).toHaveLength(3);

    // The change was audited; setting it again changes nothing; another tenant's member cannot be set.
    expect(await setEmailMode(t.db, { tenantId: tenant.id, userId: reviewer2.id, mode: "digest", actor })).toEqual({ mode: "digest", changed: false });
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "member.email_mode_changed" } })).toBe(1);
    const other = await createTestTenant(t.db);
    expect(await refusal(setEmailMode(t.db, { tenantId: other.id, userId: reviewer2.id, mode: "immediate", actor }))).toMatchObject({ status: 403 });
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("retries a refusing SMTP server and delivers the email exactly once", async () => {
    await clearOfDigestBoundary();
    const server = await smtpServer({ failFirst: 2 });
    const tenant = await createTestTenant(t.db);
    const { reviewer2, reviewer3 } = tenant.users;
    // One recipient, so the two refusals fall on its email.
    for (const member of [reviewer2, reviewer3]) {
      await setEmailMode(t.db, { tenantId: tenant.id, userId: member.id, mode: "digest", actor: { type: "user", id: member.id, label: member.email } });
    }
    const proposed = await pendingRefund(tenant);
    await pumpUntilQuiet(tenant);
    await pumpUntilQuiet(tenant);
    expect(server.refused()).toBe(2);
    const mails = mailsTo(server.mails, tenant.users.reviewer.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain(actionLink(proposed.actionId));
    const [row] = await reviewerEmails({ tenantId: tenant.id, userId: tenant.users.reviewer.id });
    expect(row).toMatchObject({ status: "sent", attempts: 3, lastError: null });
  });

  it("stores an SMTP failure without the URL's credentials", async () => {
    vi.stubEnv("SMTP_URL", "smtp://mailer:hunter2-secret@127.0.0.1:9");
    const tenant = await createTestTenant(t.db);
    await pendingRefund(tenant);
    await sealAllPending(t.db);
    await pumpReviewerEmails(t.db, { workerId: "bad-smtp" });
    const rows = await reviewerEmails({ tenantId: tenant.id });
    expect(rows.length).toBe(3);
    expect(rows.every((row) => row.status === "pending" && row.attempts === 1 && (row.lastError ?? "").length > 0)).toBe(true);
    expect(rows.map((row) => row.lastError).join(" ")).not.toContain("hunter2-secret");
    // An error that repeats the URL (as a bad login may) keeps neither the user nor the password.
    const redacted = redactSmtpSecrets("Invalid login via smtp://mailer:hunter2-secret@mail.example:587 for mailer: 535", "smtp://mailer:hunter2-secret@mail.example:587");
    expect(redacted).not.toMatch(/hunter2-secret|mailer:/);
    expect(redacted).toContain("535");
    await t.db.outboxDelivery.updateMany({ where: { channel: "reviewer_email", tenantId: tenant.id }, data: { status: "failed" } });
  });
});

describe("the one outbox, for reviewer emails", () => {
  it("asks only whom the vote would accept: not the creator of the API key that proposed it, nor the author of a revision", async () => {
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer, reviewer2, reviewer3, admin } = tenant.users;
    // An admin who also reviews mints the key the agent proposes with.
    await t.db.membership.updateMany({ where: { tenantId: tenant.id, userId: admin.id }, data: { roles: ["admin", "reviewer"] } });
    const { apiKey } = await createApiKey(t.db, { tenantId: tenant.id, name: "my-bot", allowedTools: ["refund_invoice"], createdById: admin.id });
    const proposed = await proposeAction(t.db, {
      tenantId: tenant.id, requester: { type: "api_key", apiKeyId: apiKey.id, label: "api:my-bot" }, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Through my own key" },
    });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, admin.email)).toHaveLength(0);
    for (const member of [reviewer, reviewer2, reviewer3]) expect(mailsTo(server.mails, member.email), member.email).toHaveLength(1);
    // The vote refuses them: an email would have asked for a vote that cannot count.
    const adminAsReviewer = { userId: admin.id, label: admin.email, roles: ["admin" as const, "reviewer" as const], sessionId: null };
    expect(await refusal(decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, verdict: "approve", payloadHash: proposed.payloadHash, reviewer: adminAsReviewer })))
      .toMatchObject({ status: 403 });

    // A reviewer who edits it is not asked about their own revision; the others are.
    await editAction(t.db, {
      tenantId: tenant.id, actionId: proposed.actionId, editor: reviewer.member, payloadHash: proposed.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 4_000, reason: "Through my own key" },
    });
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, reviewer.email)).toHaveLength(1);
    for (const member of [reviewer2, reviewer3]) expect(mailsTo(server.mails, member.email), member.email).toHaveLength(2);
    expect(mailsTo(server.mails, admin.email)).toHaveLength(0);
  });

  it("sends a member's digest as one email even when two workers, one message each, take the due rows at once", async () => {
    await clearOfDigestBoundary();
    const server = await smtpServer();
    const tenant = await createTestTenant(t.db);
    const { reviewer3 } = tenant.users;
    await setEmailMode(t.db, { tenantId: tenant.id, userId: reviewer3.id, mode: "digest", actor: { type: "user", id: reviewer3.id, label: reviewer3.email } });
    const actions = [await pendingRefund(tenant, 1_000), await pendingRefund(tenant, 2_000), await pendingRefund(tenant, 3_000)];
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, reviewer3.email)).toHaveLength(0);

    const afterPeriod = new Date(Date.now() + 61 * 60_000);
    const [a, b] = [createDb(t.url, { max: 2 }), createDb(t.url, { max: 2 })];
    try {
      await Promise.all([
        pumpReviewerEmails(a, { workerId: "digest-a", now: afterPeriod, limit: 1 }),
        pumpReviewerEmails(b, { workerId: "digest-b", now: afterPeriod, limit: 1 }),
      ]);
    } finally {
      await Promise.all([a.$disconnect(), b.$disconnect()]);
    }
    await pumpAfterDigestPeriod(tenant);
    const digests = mailsTo(server.mails, reviewer3.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toContain("3 actions waiting for your review");
    for (const action of actions) expect(digests[0].text).toContain(actionLink(action.actionId));
  });

  it("a worker killed while its email is on the wire leaves it unknown for a person: the next worker does not send it again", async () => {
    let child: ChildProcess | null = null;
    const server = await smtpServer({ beforeAccept: () => child?.kill("SIGKILL") });
    const tenant = await createTestTenant(t.db);
    const { reviewer, reviewer2, reviewer3 } = tenant.users;
    // One email due now: the other reviewers take a digest.
    for (const member of [reviewer2, reviewer3]) {
      await setEmailMode(t.db, { tenantId: tenant.id, userId: member.id, mode: "digest", actor: { type: "user", id: member.id, label: member.email } });
    }
    await pendingRefund(tenant);
    await sealAllPending(t.db);
    // Starting a tsx process takes tens of seconds on a loaded machine.
    const running = spawn(process.execPath, ["--import", "tsx", "tests/crash-email-worker.ts", t.url], { cwd: process.cwd(), env: process.env, stdio: "pipe" });
    child = running;
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => running.on("exit", (_code, killed) => resolve(killed)));
    expect(signal).toBe("SIGKILL");
    expect(mailsTo(server.mails, reviewer.email)).toHaveLength(1);

    // Once the killed worker's lease has lapsed, another worker finds a send that may have happened.
    const later = new Date(Date.now() + 10 * 60_000);
    await pumpReviewerEmails(t.db, { workerId: "next", now: later });
    await pumpReviewerEmails(t.db, { workerId: "next", now: later });
    expect(mailsTo(server.mails, reviewer.email)).toHaveLength(1);
    const [row] = await reviewerEmails({ tenantId: tenant.id, userId: reviewer.id });
    expect(row).toMatchObject({ status: "unknown", attempts: 1 });
    expect(row.lastError).toMatch(/may have been sent/);
  }, 180_000);
});

describe("escalation and expiry warnings", () => {
  async function reminding() {
    const tenant = await createTestTenant(t.db, { policy: REMINDING });
    const proposed = await pendingRefund(tenant);
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: proposed.actionId, revision: 1 }, select: { createdAt: true } });
    const at = (seconds: number) => new Date(revision.createdAt.getTime() + seconds * 1000);
    return { tenant, proposed, at };
  }

  it("escalates once at the configured time, not before, to the rule's role, audited with role, channel and delay; two racing sweepers fire it once", async () => {
    const server = await smtpServer();
    const { tenant, proposed, at } = await reminding();
    await pumpUntilQuiet(tenant);
    expect(mailsTo(server.mails, tenant.users.admin.email)).toHaveLength(0);

    expect(await sweepActionReminders(t.db, { now: at(30 * 60 - 1) })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.escalated" } })).toBe(0);

    // Two sweepers, each with its own connection pool, at the same moment.
    const [a, b] = [createDb(t.url, { max: 2 }), createDb(t.url, { max: 2 })];
    try {
      const fired = await Promise.all([sweepActionReminders(a, { now: at(30 * 60) }), sweepActionReminders(b, { now: at(30 * 60) })]);
      expect(fired[0] + fired[1]).toBe(1);
      expect(await sweepActionReminders(a, { now: at(31 * 60) })).toBe(0);
    } finally {
      await Promise.all([a.$disconnect(), b.$disconnect()]);
    }
    const events = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: "action.escalated" } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actionId: proposed.actionId, actorType: "system", data: { revision: 1, role: "admin", channel: "C0APPROVALS", afterSeconds: 1800 } });

    await pumpUntilQuiet(tenant, { now: at(31 * 60) });
    const escalated = mailsTo(server.mails, tenant.users.admin.email);
    expect(escalated).toHaveLength(1);
    expect(escalated[0].subject).toContain("Escalated: refund_invoice");
    expect(escalated[0].text).toContain("has waited 30m for review");
    expect(escalated[0].text).toContain(actionLink(proposed.actionId));
    // Reviewers had their pending email; the escalation goes to the admin alone.
    expect(mailsTo(server.mails, tenant.users.reviewer.email)).toHaveLength(1);
    expect(mailsTo(server.mails, tenant.users.requester.email)).toHaveLength(0);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("warns the reviewers once before expiry, and the action still expires as expired", async () => {
    const server = await smtpServer();
    const { tenant, proposed } = await reminding();
    // The first refund is decided at once, so only the second is left to warn about.
    await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "reject", note: "Not this one", reviewer: tenant.users.reviewer2.member });
    const pending = await proposeAction(t.db, {
      tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 7_000, reason: "Second" }, reason: "Customer asked",
    });
    if (pending.state !== "pending") throw new Error("expected pending");
    const expiresAt = (await t.db.action.findUniqueOrThrow({ where: { id: pending.actionId } })).expiresAt!;
    const beforeExpiry = (seconds: number) => new Date(expiresAt.getTime() - seconds * 1000);
    await pumpUntilQuiet(tenant);

    await sweepActionReminders(t.db, { now: beforeExpiry(16 * 60) }); // the escalation is due by then, the warning is not
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.expiry_warned" } })).toBe(0);
    // (The sweeper serves every tenant: count this tenant's events.)
    const warnings = () => t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.expiry_warned" } });
    await sweepActionReminders(t.db, { now: beforeExpiry(15 * 60) });
    expect(await warnings()).toBe(1);
    await sweepActionReminders(t.db, { now: beforeExpiry(60) });
    expect(await warnings()).toBe(1);
    const [warned] = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: "action.expiry_warned" } });
    expect(warned).toMatchObject({ actionId: pending.actionId, data: { revision: 1, roles: ["reviewer"], warnBeforeSeconds: 900, expiresAt: expiresAt.toISOString() } });

    await pumpUntilQuiet(tenant, { now: beforeExpiry(14 * 60) });
    const warningMails = server.mails.filter((mail) => mail.subject.includes("Expires soon") && mail.text.includes(actionLink(pending.actionId)));
    // Every reviewer who has not voted on it, once each; the requester never.
    expect(warningMails.flatMap((mail) => mail.to).sort()).toEqual([tenant.users.reviewer.email, tenant.users.reviewer2.email, tenant.users.reviewer3.email].sort());
    expect(warningMails[0].text).toContain(`expires at ${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`);

    // Past the window the sweeper warns no more, and the outcome stays expired.
    await sweepActionReminders(t.db, { now: new Date(expiresAt.getTime() + 1000) });
    expect(await warnings()).toBe(1);
    await t.ownerDb.action.update({ where: { id: pending.actionId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expireDueActions(t.db);
    expect((await t.db.action.findUniqueOrThrow({ where: { id: pending.actionId } })).status).toBe("expired");
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("announces the escalation to a webhook subscribed to action.escalated", async () => {
    const { tenant, proposed, at } = await reminding();
    const bodies: string[] = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        bodies.push(body);
        response.statusCode = 204;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const admin = { type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email };
      await registerWebhookEndpoint(t.db, { tenantId: tenant.id, actor: admin, fields: { url, events: ["action.escalated"], allowPrivate: true } });
      await sweepActionReminders(t.db, { now: at(30 * 60) });
      await sealAllPending(t.db);
      await pumpWebhooks(t.db, { workerId: "hooks" });
      expect(bodies.map((body) => JSON.parse(body) as { type: string; data: { actionId: string } })).toEqual([
        expect.objectContaining({ type: "action.escalated", data: expect.objectContaining({ actionId: proposed.actionId }) }),
      ]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
