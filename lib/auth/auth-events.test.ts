import { beforeAll, describe, expect, it } from "vitest";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { createTestTenant, TEST_PASSWORD, type TestUser } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { loadActingMember } from "@/lib/auth/acting-member";
import { authOptions } from "@/lib/auth/auth-options";
import { signInFailureAuditFor } from "@/lib/auth/audit-sign-in-failure";
import { authorizeCredentials } from "@/lib/auth/authorize-credentials";
import { PEER_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { signInWithPassword } from "@/lib/auth/sign-in";
import { startSignedInSession } from "@/lib/auth/start-signed-in-session";
import { switchTenant } from "@/lib/auth/switch-tenant";
import { getDb } from "@/lib/db/client";
import { AUDIT_EVENT_TYPES } from "@/lib/audit/audit-event-types";
import { parseAuditFilters } from "@/lib/audit/audit-filters";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";

const t = setUpTestDatabase({ appClient: true });
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);
/** A member of both tenants (as the demo's admin is of two organisations). */
let both: TestUser;

beforeAll(async () => {
  both = a.users.admin;
  await t.db.membership.create({ data: { tenantId: b.id, userId: both.id, roles: ["auditor"] } });
});

// Distinctive enough that finding it anywhere in an event means the event holds the password.
const WRONG_PASSWORD = "Wrong-Pa55word-that-must-never-be-logged";

let clients = 0;
/** A client address no other test uses, as the server stamps the peer on the request. */
const newClient = () => {
  const address = `192.0.2.${++clients}`;
  return { address, headers: { [PEER_ADDRESS_HEADER]: address, "user-agent": "vitest browser" } };
};

async function eventsOf(type: string, subjectOrActor: { actorId?: string; subjectId?: string }) {
  return t.db.auditEvent.findMany({ where: { type, ...subjectOrActor }, orderBy: { id: "asc" } });
}

const flushSignInAudits = async () => {
  await signInFailureAuditFor(t.db).flush();
  await signInFailureAuditFor(getDb()).flush();
};

describe("password sign-ins in the audit log", () => {
  it("a wrong password leaves exactly one auth.sign_in_failed in each tenant of the account, with the reason class and never the password", async () => {
    const client = newClient();
    expect(await authorizeCredentials(t.db, { email: both.email, password: WRONG_PASSWORD }, client.headers)).toEqual({ ok: false, reason: "invalid" });
    await flushSignInAudits();

    const events = await eventsOf("auth.sign_in_failed", { actorId: both.id });
    expect(events.map((e) => e.tenantId).sort()).toEqual([a.id, b.id].sort());
    for (const event of events) {
      expect(event).toMatchObject({
        outcome: "refused", actorType: "user", actorLabel: both.email, subjectType: "user", subjectId: both.id, requester: both.email, status: "invalid",
      });
      expect(event.data).toEqual({ method: "password", reason: "invalid", clientAddress: client.address, clientKey: client.address, attempts: 1 });
      expect(JSON.stringify(event, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))).not.toContain(WRONG_PASSWORD);
    }
  });

  it("the right password leaves exactly one auth.signed_in per tenant, written with the session, and never the password", async () => {
    const client = newClient();
    const result = await authorizeCredentials(t.db, { email: both.email, password: TEST_PASSWORD }, client.headers);
    if (!result.ok) throw new Error(`sign-in refused: ${result.reason}`);
    await flushSignInAudits();

    const events = await eventsOf("auth.signed_in", { subjectId: result.sessionId });
    expect(events.map((e) => e.tenantId).sort()).toEqual([a.id, b.id].sort());
    for (const event of events) {
      expect(event).toMatchObject({ outcome: "ok", actorType: "user", actorId: both.id, actorLabel: both.email, subjectType: "session" });
      expect(event.data).toEqual({
        method: "password", sessionId: result.sessionId, clientAddress: client.address, clientKey: client.address, userAgent: "vitest browser",
      });
      expect(JSON.stringify(event, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))).not.toContain(TEST_PASSWORD);
    }
    const session = await t.db.session.findUniqueOrThrow({ where: { id: result.sessionId } });
    expect(session).toMatchObject({ userId: both.id, method: "credentials", clientAddress: client.address });
    // The success wrote no failure.
    expect(await t.db.auditEvent.count({ where: { type: "auth.sign_in_failed", actorId: both.id, data: { path: ["clientAddress"], equals: client.address } } })).toBe(0);
  });

  it("an IPv6 client is recorded with the /64 the throttle counts it under", async () => {
    const user = a.users.reviewer3;
    const result = await authorizeCredentials(t.db, { email: user.email, password: TEST_PASSWORD }, { [PEER_ADDRESS_HEADER]: "2001:db8:1:2:3:4:5:6" });
    if (!result.ok) throw new Error(`sign-in refused: ${result.reason}`);
    const [event] = await eventsOf("auth.signed_in", { subjectId: result.sessionId });
    expect(event.data).toMatchObject({ clientAddress: "2001:db8:1:2:3:4:5:6", clientKey: "2001:db8:1:2::/64" });
  });

  it("a sign-in whose events cannot be written does not happen: refused as unrecorded, and no session starts", async () => {
    const user = a.users.reviewer2;
    const sessionsBefore = await t.db.session.count({ where: { userId: user.id } });
    // The audit log refuses this user's events (as a full disk or a broken chain would).
    await t.ownerDb.$executeRawUnsafe(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit log unavailable'; END $$`);
    await t.ownerDb.$executeRawUnsafe(`CREATE TRIGGER refuse_audit BEFORE INSERT ON "AuditEvent" FOR EACH ROW WHEN (NEW."actorId" = '${user.id}') EXECUTE FUNCTION refuse_audit()`);
    try {
      const result = await authorizeCredentials(t.db, { email: user.email, password: TEST_PASSWORD }, newClient().headers);
      expect(result).toEqual({ ok: false, reason: "unrecorded" });
    } finally {
      await t.ownerDb.$executeRawUnsafe(`DROP TRIGGER refuse_audit ON "AuditEvent"`);
      await t.ownerDb.$executeRawUnsafe(`DROP FUNCTION refuse_audit()`);
    }
    expect(await t.db.session.count({ where: { userId: user.id } })).toBe(sessionsBefore);
    expect(await eventsOf("auth.signed_in", { actorId: user.id })).toEqual([]);
    // With the log back, the same sign-in succeeds.
    expect(await authorizeCredentials(t.db, { email: user.email, password: TEST_PASSWORD }, newClient().headers)).toMatchObject({ ok: true });
  });

  it("a disabled account's refusal is audited as disabled; the person is told only invalid", async () => {
    const user = b.users.reviewer;
    await t.db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
    expect(await authorizeCredentials(t.db, { email: user.email, password: TEST_PASSWORD }, newClient().headers)).toEqual({ ok: false, reason: "invalid" });
    await flushSignInAudits();
    const events = await eventsOf("auth.sign_in_failed", { actorId: user.id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tenantId: b.id, status: "disabled", data: { reason: "disabled", method: "password" } });
  });

  it("an unknown email is audited in no tenant, but still counted and throttled as before", async () => {
    const email = `nobody-${Date.now()}@nowhere.test`;
    const before = await t.db.auditEvent.count({ where: { type: "auth.sign_in_failed" } });
    expect(await authorizeCredentials(t.db, { email, password: WRONG_PASSWORD }, newClient().headers)).toEqual({ ok: false, reason: "invalid" });
    await flushSignInAudits();
    expect(await t.db.auditEvent.count({ where: { type: "auth.sign_in_failed" } })).toBe(before);
    expect(await t.db.signInAttempt.count({ where: { email } })).toBe(1);
  });

  it("a burst of throttled attempts leaves one coalesced event with the count, not one per attempt", async () => {
    const user = b.users.auditor;
    const client = newClient();
    const rules = { windowSeconds: 900, perAccountClient: 1, perClient: 100, delay: { freeAttempts: 100, baseMs: 0, maxMs: 0 } };
    const results = [];
    for (let i = 0; i < 21; i++) results.push(await signInWithPassword(t.db, { email: user.email, password: `${WRONG_PASSWORD}-${i}`, clientAddress: client.address }, { rules }));
    expect(results.map((r) => (r.ok ? "ok" : r.reason))).toEqual(["invalid", ...Array<string>(20).fill("throttled")]);
    await flushSignInAudits();

    const events = await eventsOf("auth.sign_in_failed", { actorId: user.id });
    expect(events.map((e) => e.status)).toEqual(["invalid", "throttled"]);
    expect(events[1].data).toMatchObject({ reason: "throttled", attempts: 20, clientAddress: client.address, coalesced: { windowSeconds: 60, scope: "process" } });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(WRONG_PASSWORD);
  });
});

async function signedIn(userId: string, clientAddress: string | null): Promise<{ sessionId: string }> {
  const { passwordHash } = await t.db.user.findUniqueOrThrow({ where: { id: userId }, select: { passwordHash: true } });
  const session = await startSignedInSession(t.db, { userId, method: "credentials", verifiedPasswordHash: passwordHash!, clientAddress, userAgent: null });
  if (!session.started) throw new Error(`no session: ${session.refused}`);
  return session;
}

describe("sign-out and tenant switches in the audit log", () => {
  it("signing out leaves one auth.signed_out per tenant; signing the same cookie out again adds none", async () => {
    const { sessionId } = await signedIn(both.id, "192.0.2.200");
    const signOut = () => authOptions.events!.signOut!({ token: { sub: both.id, sid: sessionId }, session: { expires: "", user: {} } });
    await signOut();
    await signOut();
    const events = await eventsOf("auth.signed_out", { subjectId: sessionId });
    expect(events.map((e) => e.tenantId).sort()).toEqual([a.id, b.id].sort());
    expect(events[0]).toMatchObject({ outcome: "ok", actorId: both.id, data: { sessionId, method: "password", clientAddress: null } });
    expect((await t.db.session.findUniqueOrThrow({ where: { id: sessionId } })).revokedReason).toBe("signed_out");
  });

  it("switching tenant leaves one auth.tenant_switched in the tenant switched to; staying, or a foreign tenant, leaves none", async () => {
    const { sessionId } = await signedIn(both.id, null);
    const loaded = await loadActingMember(t.db, { userId: both.id, sessionId }, a.id);
    if (!loaded.ok) throw new Error(loaded.reason);
    const member = loaded.member;

    expect(await switchTenant(t.db, member, { tenantId: a.id }, "switcher")).toMatchObject({ tenantId: a.id });
    const foreign = await createTestTenant(t.db);
    expect(await switchTenant(t.db, member, { tenantId: foreign.id }, "switcher")).toBeNull();
    expect(await switchTenant(t.db, member, { slug: b.slug }, "link")).toMatchObject({ tenantId: b.id });

    const events = await t.db.auditEvent.findMany({ where: { type: "auth.tenant_switched", data: { path: ["sessionId"], equals: sessionId } } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      tenantId: b.id, outcome: "ok", actorId: both.id, subjectId: b.id,
      data: { fromTenantId: a.id, fromTenant: a.slug, toTenant: b.slug, sessionId, via: "link" },
    });
  });
});

describe("single sign-on in the audit log", () => {
  const account = { provider: "oidc", type: "oauth" as const, providerAccountId: "sso-sub" };

  it("an SSO sign-in leaves one auth.signed_in (method oidc) per tenant, with the session it started", async () => {
    const profile = { sub: "sso-1", email: both.email, email_verified: true };
    const token = await authOptions.callbacks!.jwt!({ token: {}, user: { id: "sso-1" }, account, profile });
    expect(token.sub).toBe(both.id);
    const events = await eventsOf("auth.signed_in", { subjectId: token.sid });
    expect(events.map((e) => e.tenantId).sort()).toEqual([a.id, b.id].sort());
    expect(events[0]).toMatchObject({ outcome: "ok", actorId: both.id, data: { method: "oidc", sessionId: token.sid } });
  });

  it("a refused SSO sign-in for a member's email leaves one auth.sign_in_failed per tenant with the reason; an unknown email none", async () => {
    const user = a.users.requester;
    const signIn = (profile: Record<string, unknown>) =>
      authOptions.callbacks!.signIn!({ user: { id: "x" }, account: { ...account, providerAccountId: String(profile.sub) }, profile: profile as { sub: string } });
    expect(await signIn({ sub: "sso-2", email: user.email, email_verified: false })).toBe("/signin?error=unverified_email");
    expect(await signIn({ sub: "sso-3", email: "stranger@nowhere.test", email_verified: true })).toBe("/signin?error=no_membership");
    await flushSignInAudits();

    const events = await eventsOf("auth.sign_in_failed", { actorId: user.id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tenantId: a.id, outcome: "refused", status: "unverified_email", data: { method: "oidc", reason: "unverified_email", attempts: 1 } });
    expect(await t.db.auditEvent.count({ where: { type: "auth.sign_in_failed", actorLabel: "stranger@nowhere.test" } })).toBe(0);
  });

  it("an SSO sign-in to a disabled account is refused as no_membership and audited as disabled", async () => {
    const user = b.users.reviewer2;
    await t.db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
    const profile = { sub: "sso-4", email: user.email, email_verified: true };
    expect(await authOptions.callbacks!.signIn!({ user: { id: "x" }, account: { ...account, providerAccountId: "sso-4" }, profile })).toBe("/signin?error=no_membership");
    await flushSignInAudits();
    const events = await eventsOf("auth.sign_in_failed", { actorId: user.id });
    expect(events.map((e) => [e.tenantId, e.status, (e.data as { method: string }).method])).toEqual([[b.id, "disabled", "oidc"]]);
  });

  it("the audit explorer lists the new types and filters by them, by the user (requester) and by the reason (status)", async () => {
    for (const type of ["auth.signed_in", "auth.sign_in_failed", "auth.signed_out", "auth.tenant_switched", "api_key.auth_failed"]) {
      expect(AUDIT_EVENT_TYPES).toContain(type);
    }
    const parsed = parseAuditFilters({ type: "auth.sign_in_failed", requester: both.email, status: "invalid" });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const page = await searchAuditEvents(t.db, { tenantId: b.id, filters: parsed.filters });
    expect(page.events.length).toBeGreaterThan(0);
    for (const event of page.events) expect(event).toMatchObject({ type: "auth.sign_in_failed", requester: both.email, status: "invalid", outcome: "refused" });
  });

  it("every event written here fits its type's schema", async () => {
    await flushSignInAudits();
    await expectEventsToFitTheirSchemas(t.db, a.id);
    await expectEventsToFitTheirSchemas(t.db, b.id);
  });
});
