import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant, type TestUser } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { startSession } from "@/lib/auth/start-session";
import { endSession } from "@/lib/auth/end-sessions";
import { SoftAuthenticator } from "@/tests/soft-authenticator";
import { actInOrderBehindActionLock } from "@/tests/action-lock";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { sha256Hex } from "@/lib/canonical/sha256-hex";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { finishPasskeyRegistration } from "@/lib/passkeys/finish-passkey-registration";
import { listPasskeys } from "@/lib/passkeys/list-passkeys";
import { relyingPartyOf } from "@/lib/passkeys/relying-party";
import { removePasskey } from "@/lib/passkeys/remove-passkey";
import { startPasskeyRegistration } from "@/lib/passkeys/start-passkey-registration";
import { startSignedApproval } from "@/lib/passkeys/start-signed-approval";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { reviewerSignals } from "@/lib/review/reviewer-signals";
import { loadActionView } from "@/lib/api/load-action-view";
import { executeAction } from "@/lib/approvals/execute-action";
import { pathToFileURL } from "node:url";

/** The standalone verifier (scripts/verify-audit-export.mjs, stdlib only), loaded as an ES module. */
type Verifier = {
  verifyExport: (file: string) => Promise<{ ok: boolean; problems: { code: string; message: string }[]; signedApprovals: number }>;
  signedApprovalProblem: (leaf: unknown) => string | null;
};
let verifier: Verifier;

/**
 * Passkey-signed approvals against the real database, assertions in the real wire format from a
 * software ES256 authenticator. Signatures are required from risk high (a 12,000.00 refund).
 */
const ORIGIN = "https://console.countersign.test";
const rp = relyingPartyOf([ORIGIN]);
let t: TestDatabase;
let a: TestTenant;
const sessions = new Map<string, string>();
/** Each member's console session, signed in when the tests start (beforeAll). */
const sessionOf = (u: TestUser) => {
  const id = sessions.get(u.id);
  if (!id) throw new Error(`${u.email} has no session`);
  return id;
};
const signIn = async (u: TestUser) => (await startSession(t.db, { userId: u.id, method: "credentials", clientAddress: null, userAgent: null })).id;
const keys = new Map<string, SoftAuthenticator>();

async function register(u: TestUser, name = "Laptop"): Promise<SoftAuthenticator> {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const options = await startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: sessionOf(u), relyingParty: rp });
  expect(options.authenticatorSelection?.userVerification).toBe("required");
  await finishPasskeyRegistration(t.db, {
    owner: { id: u.id, email: u.email, sessionId: sessionOf(u), tenantIds: [a.id] }, name, response: authenticator.register(options), relyingParty: rp,
  });
  keys.set(u.id, authenticator);
  return authenticator;
}

async function proposeHighRisk(amount = 1_200_000, invoice = "INV-1044") {
  const p = await proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amount, reason: "Signed approval test" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  return p;
}

async function signFor(u: TestUser, actionId: string, payloadHash: string, authenticator = keys.get(u.id)!, options: { userVerified?: boolean; keepCounter?: boolean } = {}) {
  const started = await startSignedApproval(t.db, { tenantId: a.id, userId: u.id, sessionId: sessionOf(u), actionId, payloadHash, relyingParty: rp });
  return { started, response: authenticator.assert(started.options.challenge, options) };
}

const approve = (u: TestUser, actionId: string, payloadHash: string, response?: ReturnType<SoftAuthenticator["assert"]>, sessionId = sessionOf(u)) =>
  decideAction(t.db, {
    tenantId: a.id, actionId, verdict: "approve", payloadHash, reviewer: u.member,
    assertion: response ? { sessionId, response, relyingParty: rp } : null,
  });

async function refusedEvent(actionId: string, code: string) {
  return t.db.auditEvent.findFirst({ where: { tenantId: a.id, actionId, type: "decision.refused", status: code } });
}

beforeAll(async () => {
  verifier = (await import(/* @vite-ignore */ pathToFileURL(path.join(process.cwd(), "scripts", "verify-audit-export.mjs")).href)) as Verifier;
  t = await createTestDatabase();
  a = await createTestTenant(t.db, { policy: { ...DEFAULT_POLICY, defaults: { ...DEFAULT_POLICY.defaults, signatureAtRisk: "high" } } });
  for (const u of Object.values(a.users)) sessions.set(u.id, await signIn(u));
  await register(a.users.reviewer);
  await register(a.users.reviewer2);
});
afterAll(async () => t?.drop());

describe("passkeys", () => {
  it("registers (audited, public key kept as SPKI), lists, and removes (audited) a member's passkey; another member cannot remove it", async () => {
    const u = a.users.reviewer3;
    await register(u, "Security key");
    const [listed] = await listPasskeys(t.db, u.id);
    expect(listed).toMatchObject({ name: "Security key", deviceType: "singleDevice", backedUp: false });
    const row = await t.db.passkey.findUniqueOrThrow({ where: { id: listed.id } });
    expect(row).toMatchObject({ algorithm: -7, credentialId: keys.get(u.id)!.credentialId });
    expect(Buffer.from(row.publicKeySpki, "base64").length).toBe(91); // P-256 SPKI
    expect(await t.db.auditEvent.findFirst({ where: { tenantId: a.id, type: "passkey.registered", subjectId: listed.id } })).toMatchObject({
      actorId: u.id, data: { name: "Security key", passkeyId: listed.id, member: u.email },
    });

    // The same registration answer again: its challenge is used up.
    const other = await refusal(removePasskey(t.db, { owner: { id: a.users.reviewer2.id, email: a.users.reviewer2.email, tenantIds: [a.id] }, passkeyId: listed.id }));
    expect(other).toMatchObject({ code: "not_found" });
    await removePasskey(t.db, { owner: { id: u.id, email: u.email, tenantIds: [a.id] }, passkeyId: listed.id });
    expect(await listPasskeys(t.db, u.id)).toEqual([]);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "passkey.removed", subjectId: listed.id } })).toBe(1);
  });

  it("adds a passkey only from a live session signed in within the last ten minutes: one signed in earlier, or ended meanwhile, adds none", async () => {
    const u = a.users.auditor;
    const authenticator = new SoftAuthenticator(ORIGIN);
    const stale = await signIn(u);
    await t.ownerDb.session.update({ where: { id: stale }, data: { createdAt: new Date(Date.now() - 11 * 60_000) } });
    expect(await refusal(startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: stale, relyingParty: rp })))
      .toMatchObject({ code: "sign_in_again", status: 403 });

    // Asked while the sign-in was recent, answered after: the answer is judged when the passkey is stored.
    const fresh = await signIn(u);
    const options = await startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: fresh, relyingParty: rp });
    const response = authenticator.register(options);
    await t.ownerDb.session.update({ where: { id: fresh }, data: { createdAt: new Date(Date.now() - 11 * 60_000) } });
    const late = await refusal(finishPasskeyRegistration(t.db, { owner: { id: u.id, email: u.email, sessionId: fresh, tenantIds: [a.id] }, name: "Late", response, relyingParty: rp }));
    expect(late).toMatchObject({ code: "sign_in_again" });
    expect(late.message).toContain("sign in again");

    const ended = await signIn(u);
    const endedOptions = await startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: ended, relyingParty: rp });
    await endSession(t.db, ended, "signed_out");
    const afterSignOut = await refusal(finishPasskeyRegistration(t.db, {
      owner: { id: u.id, email: u.email, sessionId: ended, tenantIds: [a.id] }, name: "Ended", response: authenticator.register(endedOptions), relyingParty: rp,
    }));
    expect(afterSignOut).toMatchObject({ code: "session_ended" });
    expect(await listPasskeys(t.db, u.id)).toEqual([]);
  });

  it("refuses a registration answer whose challenge was not issued to this session, or is used again", async () => {
    const u = a.users.admin;
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = await startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: sessionOf(u), relyingParty: rp });
    const response = authenticator.register(options);
    const elsewhere = await refusal(finishPasskeyRegistration(t.db, { owner: { id: u.id, email: u.email, sessionId: await signIn(u), tenantIds: [a.id] }, name: "x", response, relyingParty: rp }));
    expect(elsewhere).toMatchObject({ code: "passkey_challenge" });
    await finishPasskeyRegistration(t.db, { owner: { id: u.id, email: u.email, sessionId: sessionOf(u), tenantIds: [a.id] }, name: "x", response, relyingParty: rp });
    const again = await refusal(finishPasskeyRegistration(t.db, { owner: { id: u.id, email: u.email, sessionId: sessionOf(u), tenantIds: [a.id] }, name: "x", response, relyingParty: rp }));
    expect(again).toMatchObject({ code: "passkey_challenge" });
  });
});

describe("signed approvals", () => {
  it("stores a receipt bound to the payload hash, policy version and snapshot; the offline verifier passes on the export, and names a forged signature", async () => {
    const p = await proposeHighRisk();
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId } });
    expect(revision.riskLevel).toBe("high");
    expect(revision.policyDecision).toMatchObject({ signature: "required" });
    const { started, response } = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    expect(await approve(a.users.reviewer, p.actionId, p.payloadHash, response)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });

    const decision = await t.db.decision.findFirstOrThrow({ where: { actionId: p.actionId, reviewerId: a.users.reviewer.id }, include: { signature: true } });
    const signature = decision.signature!;
    const snapshot = await t.db.snapshot.findFirstOrThrow({ where: { revisionId: revision.id, phase: "request" } });
    const receipt = JSON.parse(signature.receipt) as Record<string, unknown>;
    expect(receipt).toEqual({
      v: 1, tenant: a.id, action: p.actionId, revision: 1, payloadHash: p.payloadHash, policyVersion: revision.policyVersion,
      snapshotHash: snapshot.hash, verdict: "approve", expiry: expect.any(String), nonce: started.receipt.nonce, reviewer: a.users.reviewer.id,
    });
    expect(signature.receiptHash).toBe(sha256Hex(canonicalJson(started.receipt)));
    expect(signature).toMatchObject({ passkeyName: "Laptop", userVerified: true, backupEligible: false, backupState: false, counter: 1n });
    expect(JSON.parse(Buffer.from(signature.clientDataJSON, "base64url").toString()).challenge).toBe(Buffer.from(signature.receiptHash, "hex").toString("base64url"));
    // Immutable like the decision.
    await expect(t.db.decisionSignature.update({ where: { decisionId: decision.id }, data: { passkeyName: "x" } })).rejects.toThrow(/immutable|permission/i);

    const second = await signFor(a.users.reviewer2, p.actionId, p.payloadHash);
    expect(await approve(a.users.reviewer2, p.actionId, p.payloadHash, second.response)).toMatchObject({ status: "approved", approvals: 2 });

    const recorded = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, actionId: p.actionId, type: "decision.recorded", reviewerId: a.users.reviewer.id } });
    expect(recorded.data).toMatchObject({ signature: { receiptHash: signature.receiptHash, passkeyName: "Laptop", publicKey: signature.publicKeySpki } });

    expect(await checkpointAuditLog(t.db, a.id)).toMatchObject({ state: "signed" });
    let text = "";
    for await (const line of verifiableExportLines(t.db, { tenantId: a.id, filters: {} })) text += line;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-signed-")), "export.jsonl");
    writeFileSync(file, text);
    const result = await verifier.verifyExport(file);
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, signedApprovals: 2 });

    // The verifier's check itself: each part of a signed approval that an auditor relies on.
    const leaf = { ...recorded, tenantId: a.id, data: recorded.data as Record<string, unknown> };
    expect(verifier.signedApprovalProblem(leaf)).toBeNull();
    const sig = (leaf.data as { signature: Record<string, unknown> }).signature;
    const tampered = (change: Record<string, unknown>, data: Record<string, unknown> = {}) =>
      verifier.signedApprovalProblem({ ...leaf, data: { ...leaf.data, ...data, signature: { ...sig, ...change } } });
    expect(tampered({ receipt: { ...receipt, payloadHash: "0".repeat(64) } })).toMatch(/does not hash/);
    expect(tampered({}, { payloadHash: "1".repeat(64) })).toMatch(/payloadHash/);
    const forged = Buffer.from(String(sig.signature), "base64url");
    forged[forged.length - 1] ^= 1;
    expect(tampered({ signature: forged.toString("base64url") })).toMatch(/does not verify/);
    const noUv = Buffer.from(String(sig.authenticatorData), "base64url");
    noUv[32] &= ~0x04;
    expect(tampered({ authenticatorData: noUv.toString("base64url") })).toMatch(/UV flag/);
    const otherKey = await t.db.passkey.findFirstOrThrow({ where: { userId: a.users.reviewer2.id } });
    expect(tampered({ publicKey: otherKey.publicKeySpki })).toMatch(/does not verify/);
  });

  it("refuses, and audits, an approval without a signature where the rule requires one, and keeps unsigned approvals where it does not", async () => {
    const p = await proposeHighRisk();
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash))).toMatchObject({ code: "signature_required", status: 403 });
    expect(await refusedEvent(p.actionId, "signature_required")).toMatchObject({ outcome: "refused", reviewerId: a.users.reviewer.id });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);

    // A payment reminder to the customer's verified domain is not high risk: no signature needed.
    const reminder = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "billing@acme.example", subject: "Reminder", body: "INV-1042 is overdue.", invoice_number: "INV-1042" },
    });
    if (reminder.state !== "pending") throw new Error("expected pending");
    const reminderRevision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: reminder.actionId } });
    expect(["low", "medium"]).toContain(reminderRevision.riskLevel);
    expect(reminderRevision.policyDecision).not.toHaveProperty("signature");
    expect(await approve(a.users.reviewer, reminder.actionId, reminder.payloadHash)).toMatchObject({ status: "approved" });
  });

  it("refuses, and audits, a replayed assertion", async () => {
    const p = await proposeHighRisk();
    const { response } = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    await approve(a.users.reviewer, p.actionId, p.payloadHash, response);
    const replay = await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, response));
    expect(replay).toMatchObject({ code: "signature_replayed" });
    expect(await refusedEvent(p.actionId, "signature_replayed")).not.toBeNull();
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(1);
  });

  it("refuses, and audits, an assertion for another action, and one for another revision", async () => {
    const p = await proposeHighRisk();
    const q = await proposeHighRisk();
    const forQ = await signFor(a.users.reviewer, q.actionId, q.payloadHash);
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, forQ.response))).toMatchObject({ code: "signature_mismatch" });
    expect(await refusedEvent(p.actionId, "signature_mismatch")).not.toBeNull();

    const forRevision1 = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    const edited = await editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer3.member, payloadHash: p.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 1_100_000, reason: "Signed approval test, edited" },
    });
    expect(edited.revision).toBe(2);
    const current = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    const stale = await refusal(approve(a.users.reviewer, p.actionId, current.payloadHash, forRevision1.response));
    expect(stale).toMatchObject({ code: "signature_mismatch" });
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, actionId: p.actionId, type: "decision.refused", status: "signature_mismatch" } })).toBe(2);
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
  });

  it("refuses, and audits, an assertion from another member's credential, one issued to another session, and one from a removed passkey", async () => {
    const p = await proposeHighRisk();
    // reviewer2's authenticator answers the challenge issued to reviewer.
    const started = await startSignedApproval(t.db, { tenantId: a.id, userId: a.users.reviewer.id, sessionId: sessionOf(a.users.reviewer), actionId: p.actionId, payloadHash: p.payloadHash, relyingParty: rp });
    const foreign = keys.get(a.users.reviewer2.id)!.assert(started.options.challenge);
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, foreign))).toMatchObject({ code: "signature_credential" });
    expect(await refusedEvent(p.actionId, "signature_credential")).not.toBeNull();

    const otherSession = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, otherSession.response, randomUUID()))).toMatchObject({ code: "signature_foreign" });

    const u = a.users.reviewer3;
    const authenticator = await register(u, "Soon removed");
    const signed = await signFor(u, p.actionId, p.payloadHash, authenticator);
    const [live] = await listPasskeys(t.db, u.id);
    await removePasskey(t.db, { owner: { id: u.id, email: u.email, tenantIds: [a.id] }, passkeyId: live.id });
    expect(await refusal(approve(u, p.actionId, p.payloadHash, signed.response))).toMatchObject({ code: "signature_credential" });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
  });

  it("refuses, and audits, an assertion without user verification, one whose counter did not rise, and a forged signature", async () => {
    const p = await proposeHighRisk();
    const noUv = await signFor(a.users.reviewer, p.actionId, p.payloadHash, undefined, { userVerified: false });
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, noUv.response))).toMatchObject({ code: "signature_unverified" });
    expect(await refusedEvent(p.actionId, "signature_unverified")).not.toBeNull();

    const sameCounter = await signFor(a.users.reviewer, p.actionId, p.payloadHash, undefined, { keepCounter: true });
    await t.db.passkey.updateMany({ where: { userId: a.users.reviewer.id }, data: { counter: keys.get(a.users.reviewer.id)!.counter } });
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, sameCounter.response))).toMatchObject({ code: "signature_counter" });

    const forged = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    const bytes = Buffer.from(forged.response.response.signature, "base64url");
    bytes[bytes.length - 1] ^= 1;
    const bad = { ...forged.response, response: { ...forged.response.response, signature: bytes.toString("base64url") } };
    expect(await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, bad))).toMatchObject({ code: "signature_invalid" });
    expect(await refusedEvent(p.actionId, "signature_invalid")).not.toBeNull();
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("binds the receipt to the snapshot the decision rests on", async () => {
    const p = await proposeHighRisk();
    const { started } = await signFor(a.users.reviewer, p.actionId, p.payloadHash);
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId }, include: { snapshots: true } });
    expect(started.receipt.snapshotHash).toBe(revision.snapshots.find((s) => s.phase === "request")?.hash ?? snapshotHash(null));
  });

  it("removing a passkey withdraws the approvals it signed that have not run: those actions go back to review; others stay approved", async () => {
    const u = a.users.reviewer2;
    const usual = keys.get(u.id)!;
    const backup = await register(u, "Backup");
    keys.set(u.id, usual);
    const signedWithBackup = await proposeHighRisk(1_000_000);
    const signedWithUsual = await proposeHighRisk(1_100_000);
    for (const p of [signedWithBackup, signedWithUsual]) {
      expect(await approve(a.users.reviewer, p.actionId, p.payloadHash, (await signFor(a.users.reviewer, p.actionId, p.payloadHash)).response))
        .toMatchObject({ status: "pending" });
    }
    expect(await approve(u, signedWithBackup.actionId, signedWithBackup.payloadHash, (await signFor(u, signedWithBackup.actionId, signedWithBackup.payloadHash, backup)).response))
      .toMatchObject({ status: "approved", approvals: 2 });
    expect(await approve(u, signedWithUsual.actionId, signedWithUsual.payloadHash, (await signFor(u, signedWithUsual.actionId, signedWithUsual.payloadHash)).response))
      .toMatchObject({ status: "approved", approvals: 2 });

    const removed = (await listPasskeys(t.db, u.id)).find((k) => k.name === "Backup")!;
    await removePasskey(t.db, { owner: { id: u.id, email: u.email, tenantIds: [a.id] }, passkeyId: removed.id });

    const reopened = await t.db.action.findUniqueOrThrow({ where: { id: signedWithBackup.actionId } });
    expect(reopened).toMatchObject({ status: "pending", decidedAt: null });
    expect(reopened.statusReason).toMatch(/removed the passkey that signed their approval.*\(1 of 2 approvals still count\.\)/);
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { actionId: signedWithBackup.actionId, type: "action.reopened" } });
    expect(event).toMatchObject({ actorId: u.id, status: "pending" });
    expect(event.data).toEqual({ revision: 1, cause: "passkey_removed", member: u.email, passkeyId: removed.id, approvals: 1, quorum: 2 });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: signedWithUsual.actionId } })).status).toBe("approved");
    expect(await t.db.auditEvent.count({ where: { actionId: signedWithUsual.actionId, type: "action.reopened" } })).toBe(0);
    // The decision and its signature stay on record; a third reviewer's signed approval completes it again.
    expect(await t.db.decisionSignature.count({ where: { passkeyId: removed.id } })).toBe(1);
    const third = a.users.reviewer3;
    const spare = await register(third, "Spare");
    expect(await approve(third, signedWithBackup.actionId, signedWithBackup.payloadHash, (await signFor(third, signedWithBackup.actionId, signedWithBackup.payloadHash, spare)).response))
      .toMatchObject({ status: "approved", approvals: 2 });
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("a reviewer whose signed approval was withdrawn with its passkey may approve again with another; one whose approval counts may not", async () => {
    const u = a.users.reviewer3;
    const lost = await register(u, "Lost phone");
    const p = await proposeHighRisk(1_150_000);
    expect(await approve(a.users.reviewer, p.actionId, p.payloadHash, (await signFor(a.users.reviewer, p.actionId, p.payloadHash)).response))
      .toMatchObject({ status: "pending", approvals: 1 });
    expect(await approve(u, p.actionId, p.payloadHash, (await signFor(u, p.actionId, p.payloadHash, lost)).response))
      .toMatchObject({ status: "approved", approvals: 2 });
    const viewer = (userId: string) => ({ tenantId: a.id, userId, roles: ["reviewer" as const] });
    expect((await loadActionDetail(t.db, viewer(u.id), p.actionId))!.viewer).toMatchObject({ myVote: "approve" });

    const lostKey = (await listPasskeys(t.db, u.id)).find((k) => k.name === "Lost phone")!;
    await removePasskey(t.db, { owner: { id: u.id, email: u.email, tenantIds: [a.id] }, passkeyId: lostKey.id });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("pending");
    // Their approval no longer counts, so the page offers them the decision again.
    const back = (await loadActionDetail(t.db, viewer(u.id), p.actionId))!;
    expect(back.approvals).toBe(1);
    expect(back.viewer).toMatchObject({ myVote: null, canDecide: true, decideBlockedReason: null });

    // The reviewer whose approval still counts may not vote a second time, signed or not.
    const again = await refusal(approve(a.users.reviewer, p.actionId, p.payloadHash, (await signFor(a.users.reviewer, p.actionId, p.payloadHash)).response));
    expect(again.code).toBe("already_voted");
    expect(await refusedEvent(p.actionId, "already_voted")).not.toBeNull();

    const signalsBefore = (await reviewerSignals(t.db, a.id)).find((r) => r.reviewerId === u.id)!;
    const replacement = await register(u, "New phone");
    expect(await approve(u, p.actionId, p.payloadHash, (await signFor(u, p.actionId, p.payloadHash, replacement)).response))
      .toMatchObject({ status: "approved", approvals: 2 });
    const decisions = await t.db.decision.findMany({ where: { actionId: p.actionId, reviewerId: u.id }, include: { signature: true }, orderBy: { createdAt: "asc" } });
    expect(decisions.map((d) => d.signature?.passkeyName)).toEqual(["Lost phone", "New phone"]);
    const approved = (await loadActionDetail(t.db, viewer(a.users.reviewer2.id), p.actionId))!;
    expect(approved.approvals).toBe(2);
    expect(approved.decisions.find((d) => d.id === decisions[0].id)?.counts).toBe(false);
    // The reviewer signals count the approval given again as the one decision it repeats.
    expect((await reviewerSignals(t.db, a.id)).find((r) => r.reviewerId === u.id)).toEqual(signalsBefore);

    // Once it has run, the record counts each reviewer's last vote: two of two, not three.
    const ran = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "test" } });
    expect(ran.state).toBe("succeeded");
    const done = (await loadActionDetail(t.db, viewer(a.users.reviewer2.id), p.actionId))!;
    expect(done.status).toBe("succeeded");
    expect(done.approvals).toBe(2);
    expect(done.decisions.map((d) => d.counts)).toEqual([true, false, true]);
    const api = await loadActionView(t.db, { tenantId: a.id, actionId: p.actionId, apiKeyId: null });
    expect(api.approvals).toBe(2);
    expect(api.decisions.map((d) => d.counts)).toEqual([true, false, true]);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("a signed vote and the removal of its passkey at once both finish: the vote locks the passkey before the action, as the removal does; a rejection given after is their one decision in the signals (real concurrency against PostgreSQL)", async () => {
    const u = a.users.reviewer3;
    const tab = await register(u, "Two tabs");
    // An invoice of its own: the tests before this one refund most of INV-1044.
    const paid = await t.db.invoice.findFirstOrThrow({ where: { tenantId: a.id, number: "INV-1044" } });
    await t.db.invoice.create({
      data: { tenantId: a.id, number: "INV-2044", customerId: paid.customerId, status: "paid", amountDueMinor: 0, amountPaidMinor: 1_200_000, dueDate: paid.dueDate },
    });
    const p = await proposeHighRisk(1_140_000, "INV-2044");
    expect(await approve(u, p.actionId, p.payloadHash, (await signFor(u, p.actionId, p.payloadHash, tab)).response))
      .toMatchObject({ status: "pending", approvals: 1 });
    // The same approval sent again from a second tab, while the first tab removes the passkey.
    const again = (await signFor(u, p.actionId, p.payloadHash, tab)).response;
    const passkeyId = (await listPasskeys(t.db, u.id)).find((k) => k.name === "Two tabs")!.id;
    const [vote, removal] = await actInOrderBehindActionLock(t.url, p.actionId,
      () => approve(u, p.actionId, p.payloadHash, again),
      () => removePasskey(t.db, { owner: { id: u.id, email: u.email, tenantIds: [a.id] }, passkeyId }));
    // The vote went first, while their approval still counted; then the removal withdrew it.
    expect(vote).toMatchObject({ status: "rejected", reason: { code: "already_voted" } });
    expect(removal).toMatchObject({ status: "fulfilled" });
    expect((await loadActionDetail(t.db, { tenantId: a.id, userId: u.id, roles: ["reviewer"] }, p.actionId))!.approvals).toBe(0);

    // Their approval withdrawn, they reject it instead: the reviewer signals keep one decision for
    // the revision, with the verdict they stand by.
    const before = (await reviewerSignals(t.db, a.id)).find((r) => r.reviewerId === u.id)!;
    expect(await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "reject", payloadHash: p.payloadHash, reviewer: u.member, note: "Not this amount" }))
      .toMatchObject({ status: "rejected" });
    const after = (await reviewerSignals(t.db, a.id)).find((r) => r.reviewerId === u.id)!;
    expect(after.decisions).toBe(before.decisions);
    expect(after.approvalRate * after.decisions).toBeCloseTo(before.approvalRate * before.decisions - 1);
  });
});
