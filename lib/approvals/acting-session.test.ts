import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { whileActionLocked, whileHolding } from "@/tests/action-lock";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { refusal } from "@/tests/refusal";
import type { Member } from "@/lib/approvals/actors";
import { decideAction } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { rereadActionState } from "@/lib/approvals/reread-action-state";
import { signOutSession } from "@/lib/auth/sign-out";
import { startSession } from "@/lib/auth/start-session";

/**
 * A console act holds the session it comes from until it commits: the request boundary checked
 * the session, and a vote, an edit, a re-read or an execution whose session ended on its way
 * (signed out, expired, ended by a password change or a role removal) is refused by the act itself — also one
 * that ends while the act waits (real concurrency against PostgreSQL) — and a sign-out that comes
 * while an act is under way waits for it.
 */

const t = setUpTestDatabase();

/** The tenant's reviewer, signed in to the console: a live session of their own. */
async function signedInReviewer(tenant: TestTenant): Promise<Member> {
  const session = await startSession(t.db, { userId: tenant.users.reviewer.id, method: "credentials", clientAddress: null, userAgent: null });
  return { ...tenant.users.reviewer.member, sessionId: session.id };
}

async function pendingRefund(tenant: TestTenant, amountMinor: number) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Duplicate charge" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  return p;
}

const approve = (tenant: TestTenant, reviewer: Member, p: { actionId: string; payloadHash: string }) =>
  decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, verdict: "approve", reviewer });

const signOut = (sessionId: string) => signOutSession(t.db, { sessionId, clientAddress: null });

describe("a console act whose session has ended", () => {
  it("a vote is refused (session_ended, 401), audited, and nothing is recorded", async () => {
    const tenant = await createTestTenant(t.db);
    const reviewer = await signedInReviewer(tenant);
    const p = await pendingRefund(tenant, 3_101);
    expect(await signOut(reviewer.sessionId!)).toBe(true);
    const error = await refusal(approve(tenant, reviewer, p));
    expect(error).toMatchObject({ code: "session_ended", status: 401 });
    expect(error.message).toMatch(/Sign in again/);
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "decision.refused", status: "session_ended" } })).toBe(1);
    // The same member through a channel without a console session (a linked Slack account) still decides.
    expect((await approve(tenant, tenant.users.reviewer.member, p)).status).toBe("approved");
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("an edit, a re-read and an execution are refused too, and change nothing", async () => {
    const tenant = await createTestTenant(t.db);
    const reviewer = await signedInReviewer(tenant);
    const p = await pendingRefund(tenant, 3_102);
    const q = await pendingRefund(tenant, 3_103);
    await approve(tenant, tenant.users.reviewer2.member, q);
    await signOut(reviewer.sessionId!);

    const edit = editAction(t.db, {
      tenantId: tenant.id, actionId: p.actionId, editor: reviewer, payloadHash: p.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 3_000, reason: "Duplicate charge" },
    });
    expect(await refusal(edit)).toMatchObject({ code: "session_ended" });
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.edit_refused", status: "session_ended" } })).toBe(1);
    expect(await refusal(rereadActionState(t.db, { tenantId: tenant.id, actionId: p.actionId, member: reviewer, payloadHash: p.payloadHash })))
      .toMatchObject({ code: "session_ended" });
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).currentRevision).toBe(1);

    const run = executeAction(t.db, {
      tenantId: tenant.id, actionId: q.actionId, payloadHash: q.payloadHash, executor: { type: "member", userId: reviewer.userId, sessionId: reviewer.sessionId },
      actor: { type: "user", id: reviewer.userId, label: reviewer.label },
    });
    expect(await refusal(run)).toMatchObject({ code: "session_ended", status: 401 });
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, subjectId: q.actionId, type: "execution.refused", status: "session_ended" } })).toBe(1);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: q.actionId } })).toMatchObject({ status: "approved", consumedAt: null });
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });
});

describe("a session that ends while a console act is on its way (real concurrency against PostgreSQL)", () => {
  it("a sign-out under way when the vote reaches the session: the vote waits for it, then is refused", async () => {
    const tenant = await createTestTenant(t.db);
    const reviewer = await signedInReviewer(tenant);
    const p = await pendingRefund(tenant, 3_104);
    const voting = await whileHolding(t.url, [[`UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = 'signed_out' WHERE id = $1`, [reviewer.sessionId]]], async (waiters) => {
      const run = approve(tenant, reviewer, p).then(() => null, (error: unknown) => error);
      await waiters(1);
      return { run };
    });
    expect(await voting.run).toMatchObject({ code: "session_ended" });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
  });

  it("a sign-out that comes while a vote waits for the action waits for the vote, which is recorded", async () => {
    const tenant = await createTestTenant(t.db);
    const reviewer = await signedInReviewer(tenant);
    const p = await pendingRefund(tenant, 3_105);
    const queued = await whileActionLocked(t.url, p.actionId, async (waiters) => {
      const voting = approve(tenant, reviewer, p);
      await waiters(1); // holding its session, waiting for the action
      const signingOut = signOut(reviewer.sessionId!);
      await waiters(2); // the sign-out waits for the vote
      return { voting, signingOut };
    });
    expect((await queued.voting).status).toBe("approved");
    expect(await queued.signingOut).toBe(true);
    const [decision, session] = await Promise.all([
      t.db.decision.findFirstOrThrow({ where: { actionId: p.actionId } }),
      t.db.session.findUniqueOrThrow({ where: { id: reviewer.sessionId! } }),
    ]);
    expect(session.revokedAt!.getTime()).toBeGreaterThanOrEqual(decision.createdAt.getTime());
  });
});
