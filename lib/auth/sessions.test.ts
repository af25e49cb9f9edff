import { describe, expect, it } from "vitest";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { loadActingMember, type SessionRef } from "@/lib/auth/acting-member";
import { authOptions } from "@/lib/auth/auth-options";
import { endSession, endUserSessions } from "@/lib/auth/end-sessions";
import { listSessions } from "@/lib/auth/list-sessions";
import { startSession } from "@/lib/auth/start-session";
import { setMemberRoles } from "@/lib/members/set-member-roles";

const t = setUpTestDatabase({ appClient: true });
const tenant = setUpTestTenant(t);

async function signedIn(userId: string): Promise<SessionRef> {
  const { id } = await startSession(t.db, { userId, method: "credentials", clientAddress: "203.0.113.1", userAgent: "vitest" });
  return { userId, sessionId: id };
}

const reasonOf = async (session: SessionRef) => {
  const result = await loadActingMember(t.db, session);
  return result.ok ? "ok" : result.reason;
};

describe("sessions end on the server", () => {
  it("a live session loads the member with its own id; an unknown, foreign or malformed one is signed out", async () => {
    const user = tenant.users.requester;
    const session = await signedIn(user.id);
    const result = await loadActingMember(t.db, session);
    expect(result.ok && result.member).toMatchObject({ user: { id: user.id }, tenant: { id: tenant.id }, roles: ["requester"], session: { id: session.sessionId } });

    expect(await reasonOf({ userId: user.id, sessionId: "00000000-0000-4000-8000-000000000000" })).toBe("signed_out");
    expect(await reasonOf({ userId: tenant.users.reviewer.id, sessionId: session.sessionId })).toBe("signed_out");
    expect(await reasonOf({ userId: user.id, sessionId: "not-a-uuid" })).toBe("signed_out");
  });

  it("sign-out through next-auth ends the session row, so the old cookie no longer counts", async () => {
    const session = await signedIn(tenant.users.reviewer.id);
    expect(await reasonOf(session)).toBe("ok");
    await authOptions.events!.signOut!({ token: { sub: session.userId, sid: session.sessionId }, session: { expires: "", user: {} } });
    expect(await reasonOf(session)).toBe("signed_out");
    const row = await t.db.session.findUniqueOrThrow({ where: { id: session.sessionId } });
    expect(row.revokedReason).toBe("signed_out");
    expect(row.revokedAt).not.toBeNull();
  });

  it("expires by the database clock, whatever the cookie says", async () => {
    const session = await signedIn(tenant.users.auditor.id);
    await t.db.$executeRaw`UPDATE "Session" SET "expiresAt" = now() - interval '1 second' WHERE id = ${session.sessionId}::uuid`;
    expect(await reasonOf(session)).toBe("signed_out");
  });

  it("losing a role ends every session of that member, in the audited change; gaining one does not", async () => {
    const local = await createTestTenant(t.db);
    const reviewer = local.users.reviewer;
    const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: local.id, userId: reviewer.id } });
    const actor = { type: "user" as const, id: local.users.admin.id, label: local.users.admin.email };
    const first = await signedIn(reviewer.id);
    const second = await signedIn(reviewer.id);

    await setMemberRoles(t.db, { tenantId: local.id, membershipId: membership.id, roles: ["reviewer", "auditor"], actor });
    expect([await reasonOf(first), await reasonOf(second)]).toEqual(["ok", "ok"]);

    await setMemberRoles(t.db, { tenantId: local.id, membershipId: membership.id, roles: ["auditor"], actor });
    expect([await reasonOf(first), await reasonOf(second)]).toEqual(["signed_out", "signed_out"]);
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: local.id, type: "member.roles_changed" }, orderBy: { id: "desc" } });
    expect(event.data).toMatchObject({ before: ["reviewer", "auditor"], after: ["auditor"], sessionsEnded: 2 });
    await expectEventsToFitTheirSchemas(t.db, local.id);

    // Removing every role ends the session signed in after the first removal too.
    const third = await signedIn(reviewer.id);
    await setMemberRoles(t.db, { tenantId: local.id, membershipId: membership.id, roles: [], actor });
    expect(await reasonOf(third)).toBe("signed_out");
    expect((await t.db.session.findUniqueOrThrow({ where: { id: third.sessionId } })).revokedReason).toBe("roles_removed");
  });

  it("disabling a user ends their sessions for good, even once the account is enabled again", async () => {
    const user = tenant.users.reviewer3;
    const session = await signedIn(user.id);
    await t.db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
    expect(await reasonOf(session)).toBe("signed_out");
    await t.db.user.update({ where: { id: user.id }, data: { disabledAt: null } });
    expect(await reasonOf(session)).toBe("signed_out");
    expect((await t.db.session.findUniqueOrThrow({ where: { id: session.sessionId } })).revokedReason).toBe("user_disabled");
  });

  it("endUserSessions can spare the session that asked, and the account page lists only live sessions", async () => {
    const local = await createTestTenant(t.db);
    const user = local.users.requester;
    const here = await signedIn(user.id);
    const elsewhere = await signedIn(user.id);
    const ended = await signedIn(user.id);
    await endSession(t.db, ended.sessionId, "signed_out");
    expect((await listSessions(t.db, user.id, here.sessionId)).map((s) => [s.id, s.current]).sort()).toEqual(
      [[here.sessionId, true], [elsewhere.sessionId, false]].sort(),
    );
    expect(await endUserSessions(t.db, user.id, "password_changed", { exceptSessionId: here.sessionId })).toBe(1);
    expect([await reasonOf(here), await reasonOf(elsewhere)]).toEqual(["ok", "signed_out"]);
  });

  it("notes when a session was last seen, at most once a minute", async () => {
    const session = await signedIn(tenant.users.reviewer2.id);
    await t.db.$executeRaw`UPDATE "Session" SET "lastSeenAt" = now() - interval '5 minutes' WHERE id = ${session.sessionId}::uuid`;
    await loadActingMember(t.db, session);
    const seen = (await t.db.session.findUniqueOrThrow({ where: { id: session.sessionId } })).lastSeenAt;
    expect(Date.now() - seen.getTime()).toBeLessThan(60_000);
    await loadActingMember(t.db, session);
    expect((await t.db.session.findUniqueOrThrow({ where: { id: session.sessionId } })).lastSeenAt).toEqual(seen);
  });
});

describe("the tenant cookie is a preference", () => {
  it("a tenant the user has left falls back to their first membership; one they never had is never reached", async () => {
    const first = await createTestTenant(t.db);
    const second = await createTestTenant(t.db);
    const stranger = await createTestTenant(t.db);
    const user = first.users.admin;
    const extra = await t.db.membership.create({ data: { tenantId: second.id, userId: user.id, roles: ["requester"] } });
    const session = await signedIn(user.id);

    const inSecond = await loadActingMember(t.db, session, second.id);
    expect(inSecond.ok && inSecond.member.tenant.id).toBe(second.id);

    await t.db.membership.delete({ where: { id: extra.id } });
    const stale = await loadActingMember(t.db, session, second.id);
    expect(stale.ok && stale.member.tenant.id).toBe(first.id);
    expect(stale.ok && stale.member.memberships.map((m) => m.tenantId)).toEqual([first.id]);

    const foreign = await loadActingMember(t.db, session, stranger.id);
    expect(foreign.ok && foreign.member.tenant.id).toBe(first.id);
    expect(foreign.ok && foreign.member.roles).toEqual(["admin"]);

    const garbage = await loadActingMember(t.db, session, "'; DROP TABLE \"Tenant\" --");
    expect(garbage.ok && garbage.member.tenant.id).toBe(first.id);
  });

  it("a member with no roles anywhere is refused, not signed out", async () => {
    const local = await createTestTenant(t.db);
    const user = local.users.auditor;
    const session = await signedIn(user.id);
    await t.db.membership.updateMany({ where: { userId: user.id }, data: { roles: [] } });
    expect(await reasonOf(session)).toBe("no_membership");
  });
});
