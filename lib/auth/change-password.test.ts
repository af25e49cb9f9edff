import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { refusal } from "@/tests/refusal";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { createTestTenant, TEST_PASSWORD } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { loadActingMember, type SessionRef } from "@/lib/auth/acting-member";
import { changePassword, CURRENT_PASSWORD_CHECKS, type ChangePasswordInput } from "@/lib/auth/change-password";
import { signInWithPassword } from "@/lib/auth/sign-in";
import { hashPassword } from "@/lib/auth/password";
import { startSession } from "@/lib/auth/start-session";
import { startSignedInSession } from "@/lib/auth/start-signed-in-session";
import { signInFailureAuditFor } from "@/lib/auth/audit-sign-in-failure";

const t = setUpTestDatabase();
const tenant = setUpTestTenant(t);
const other = setUpTestTenant(t);

const NEW_PASSWORD = "a much longer new passphrase";

async function signedIn(userId: string): Promise<SessionRef> {
  const { id } = await startSession(t.db, { userId, method: "credentials", clientAddress: null, userAgent: null });
  return { userId, sessionId: id };
}

const live = async (session: SessionRef) => (await loadActingMember(t.db, session)).ok;

function input(session: SessionRef, email: string, overrides: Partial<ChangePasswordInput> = {}): ChangePasswordInput {
  return {
    userId: session.userId, sessionId: session.sessionId, currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD,
    actor: { type: "user", id: session.userId, label: email }, ...overrides,
  };
}

describe("changePassword", () => {
  it("with the current password: the new one works, the old one does not, every other session ends, audited in each organisation", async () => {
    const user = tenant.users.reviewer;
    await t.db.membership.create({ data: { tenantId: other.id, userId: user.id, roles: ["auditor"] } });
    const here = await signedIn(user.id);
    const laptop = await signedIn(user.id);
    const phone = await signedIn(user.id);
    const bystander = await signedIn(tenant.users.reviewer2.id);

    expect(await changePassword(t.db, input(here, user.email))).toEqual({ sessionsEnded: 2 });
    expect([await live(here), await live(laptop), await live(phone), await live(bystander)]).toEqual([true, false, false, true]);
    expect((await t.db.session.findUniqueOrThrow({ where: { id: laptop.sessionId } })).revokedReason).toBe("password_changed");

    expect(await signInWithPassword(t.db, { email: user.email, password: NEW_PASSWORD, clientAddress: "203.0.113.20" })).toMatchObject({ ok: true, userId: user.id });
    expect(await signInWithPassword(t.db, { email: user.email, password: TEST_PASSWORD, clientAddress: "203.0.113.20" })).toEqual({ ok: false, reason: "invalid" });

    for (const tenantId of [tenant.id, other.id]) {
      const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId, type: "account.password_changed" } });
      expect(event).toMatchObject({ actorId: user.id, outcome: "ok", subjectId: user.id, data: { otherSessionsEnded: 2 } });
      expect(JSON.stringify(event.data)).not.toContain(NEW_PASSWORD);
      await expectEventsToFitTheirSchemas(t.db, tenantId);
    }
  });

  it("a wrong current password changes nothing, is audited, and is limited", async () => {
    const user = tenant.users.auditor;
    const here = await signedIn(user.id);
    const elsewhere = await signedIn(user.id);
    const wrong = await refusal(changePassword(t.db, input(here, user.email, { currentPassword: "not my password" })));
    expect(wrong.code).toBe("wrong_password");
    expect(wrong.message).toBe("Your current password is not correct. Check it and try again.");
    expect(await live(elsewhere)).toBe(true);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "account.password_change_refused", actorId: user.id } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);

    for (let i = 1; i < CURRENT_PASSWORD_CHECKS.limit; i++) {
      await refusal(changePassword(t.db, input(here, user.email, { currentPassword: `guess ${i}` })));
    }
    // Even the right current password now waits out the window: a stolen session cannot guess on.
    const throttled = await refusal(changePassword(t.db, input(here, user.email)));
    expect(throttled.code).toBe("throttled");
    expect(throttled.status).toBe(429);
    expect(await signInWithPassword(t.db, { email: user.email, password: TEST_PASSWORD, clientAddress: "203.0.113.21" })).toMatchObject({ ok: true });
  });

  it("refuses a short, overlong or unchanged new password before checking anything", async () => {
    const user = tenant.users.requester;
    const here = await signedIn(user.id);
    expect((await refusal(changePassword(t.db, input(here, user.email, { newPassword: "short" })))).message)
      .toBe("Choose a new password of at least 15 characters.");
    expect((await refusal(changePassword(t.db, input(here, user.email, { newPassword: "x".repeat(257) })))).code).toBe("weak_password");
    expect((await refusal(changePassword(t.db, input(here, user.email, { newPassword: TEST_PASSWORD })))).code).toBe("same_password");
    // The demo password is long enough to be chosen.
    expect("countersign-demo".length).toBeGreaterThanOrEqual(15);
    expect(await signInWithPassword(t.db, { email: user.email, password: TEST_PASSWORD, clientAddress: "203.0.113.22" })).toMatchObject({ ok: true });
  });

  it("a sign-in whose password was checked before a password change starts no session after it, audited as such", async () => {
    const own = await createTestTenant(t.db);
    const user = own.users.reviewer;
    const here = await signedIn(user.id);
    const checked = await signInWithPassword(t.db, { email: user.email, password: TEST_PASSWORD, clientAddress: "203.0.113.30" });
    if (!checked.ok) throw new Error(`sign-in refused: ${checked.reason}`);
    await changePassword(t.db, input(here, user.email));

    const session = await startSignedInSession(t.db, { userId: user.id, method: "credentials", verifiedPasswordHash: checked.passwordHash, clientAddress: "203.0.113.30", userAgent: null });
    expect(session).toEqual({ started: false, refused: "password_changed" });
    expect(await t.db.session.count({ where: { userId: user.id } })).toBe(1);
    await signInFailureAuditFor(t.db).flush();
    const refused = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: own.id, type: "auth.sign_in_failed" } });
    expect(refused).toMatchObject({ actorId: user.id, outcome: "refused", data: { method: "password", reason: "password_changed", clientAddress: "203.0.113.30" } });
    await expectEventsToFitTheirSchemas(t.db, own.id);
  });

  it("a sign-in that reaches its session while a password change is being written waits for it, then starts no session", async () => {
    const own = await createTestTenant(t.db);
    const user = own.users.reviewer;
    const checked = await signInWithPassword(t.db, { email: user.email, password: TEST_PASSWORD, clientAddress: "203.0.113.31" });
    if (!checked.ok) throw new Error(`sign-in refused: ${checked.reason}`);
    // Another connection is inside a password change: it has written the new hash, not yet committed.
    const changer = new Client({ connectionString: t.url });
    await changer.connect();
    try {
      await changer.query("BEGIN");
      await changer.query(`UPDATE "User" SET "passwordHash" = $2 WHERE id = $1`, [user.id, await hashPassword(NEW_PASSWORD)]);
      const changerPid = (await changer.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const starting = startSignedInSession(t.db, { userId: user.id, method: "credentials", verifiedPasswordHash: checked.passwordHash, clientAddress: "203.0.113.31", userAgent: null })
        .then((session) => ({ session }), (error: unknown) => ({ error }));
      await expect.poll(async () => (await changer.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid))", [changerPid],
      )).rows[0].n, { timeout: 30_000, interval: 20 }).toBe(1);
      await changer.query("COMMIT");
      expect(await starting).toEqual({ session: { started: false, refused: "password_changed" } });
    } finally {
      await changer.end();
    }
    expect(await t.db.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("an account without a password (single sign-on) is told where to change it", async () => {
    const user = tenant.users.admin;
    await t.db.user.update({ where: { id: user.id }, data: { passwordHash: null } });
    const here = await signedIn(user.id);
    expect((await refusal(changePassword(t.db, input(here, user.email)))).code).toBe("no_password");
  });
});
