import { describe, expect, it } from "vitest";
import { refusal } from "@/tests/refusal";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { listApiKeys } from "@/lib/api-keys/list-api-keys";
import { authenticateApiKey, resolveApiKey } from "@/lib/api-keys/authenticate-api-key";
import { apiKeyUseRecorderFor, createApiKeyUseRecorder } from "@/lib/api-keys/record-api-key-use";
import { hashApiKeySecret, parseApiKeySecret, secretHashesEqual } from "@/lib/api-keys/api-key-secret";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);

const adminActor = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });

describe("createApiKey", () => {
  it("returns the secret once and stores only its SHA-256", async () => {
    const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name: "ci-bot", allowedTools: ["run_python", "run_python"], createdById: a.users.admin.id });
    expect(secret).toMatch(/^cs_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(parseApiKeySecret(secret)?.prefix).toBe(apiKey.prefix);
    expect(apiKey).toEqual({ id: expect.any(String), name: "ci-bot", prefix: apiKey.prefix, allowedTools: ["run_python"], createdAt: expect.any(Date) });
    expect(apiKey).not.toHaveProperty("secretHash");
    const row = await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id }, select: { secretHash: true } });
    expect(row.secretHash).toBe(hashApiKeySecret(secret));
    expect(JSON.stringify(await t.db.apiKey.findMany({ where: { id: apiKey.id }, select: { secretHash: true } }))).not.toContain(secret);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "api_key.created", subjectId: apiKey.id } });
    expect(audit.actorId).toBe(a.users.admin.id);
    // The secret's random part: its last 43 characters (it may itself contain "_").
    expect(JSON.stringify(audit.data)).not.toContain(secret.slice(-43));
  });

  it("refuses unknown tools, empty scopes, bad names and non-members", async () => {
    expect((await refusal(createApiKey(t.db, { tenantId: a.id, name: "x", allowedTools: ["rm_rf"], createdById: a.users.admin.id }))).code).toBe("invalid_tools");
    expect((await refusal(createApiKey(t.db, { tenantId: a.id, name: "x", allowedTools: [], createdById: a.users.admin.id }))).code).toBe("invalid_tools");
    expect((await refusal(createApiKey(t.db, { tenantId: a.id, name: "  ", allowedTools: ["get_invoice"], createdById: a.users.admin.id }))).code).toBe("invalid_name");
    expect((await refusal(createApiKey(t.db, { tenantId: a.id, name: "<script>", allowedTools: ["get_invoice"], createdById: a.users.admin.id }))).code).toBe("invalid_name");
    expect((await refusal(createApiKey(t.db, { tenantId: a.id, name: "x", allowedTools: ["get_invoice"], createdById: b.users.admin.id }))).code).toBe("forbidden");
  });
});

describe("API keys by someone who is no longer an admin", () => {
  it("creates no key and revokes none (refused 403, audited as api_key.refused)", async () => {
    const c = await createTestTenant(t.db);
    const { apiKey } = await createApiKey(t.db, { tenantId: c.id, name: "live-bot", allowedTools: ["get_invoice"], createdById: c.users.admin.id });
    // The reviewer stands for an admin demoted after their request passed the boundary.
    const formerAdmin = { type: "user" as const, id: c.users.reviewer.id, label: c.users.reviewer.email };
    const forbidden = { code: "forbidden", status: 403, message: "Only admins may manage API keys, and you are no longer an admin here." };
    expect(await refusal(createApiKey(t.db, { tenantId: c.id, name: "sneaky-bot", allowedTools: ["get_invoice"], createdById: formerAdmin.id }))).toMatchObject(forbidden);
    expect(await refusal(revokeApiKey(t.db, { tenantId: c.id, id: apiKey.id, actor: formerAdmin }))).toMatchObject(forbidden);
    expect((await t.db.apiKey.findMany({ where: { tenantId: c.id } })).map((k) => ({ name: k.name, revokedAt: k.revokedAt }))).toEqual([{ name: "live-bot", revokedAt: null }]);
    expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: { in: ["api_key.revoked"] } } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: "api_key.created" } })).toBe(1);
    const refused = await t.db.auditEvent.findMany({ where: { tenantId: c.id, type: "api_key.refused" }, orderBy: { id: "asc" } });
    expect(refused.map((e) => ({ actorId: e.actorId, outcome: e.outcome, subjectId: e.subjectId, data: e.data }))).toEqual([
      { actorId: formerAdmin.id, outcome: "refused", subjectId: null, data: { operation: "create", name: "sneaky-bot", reason: "not_admin" } },
      { actorId: formerAdmin.id, outcome: "refused", subjectId: apiKey.id, data: { operation: "revoke", name: "live-bot", prefix: apiKey.prefix, reason: "not_admin" } },
    ]);
  });
});

describe("authenticateApiKey", () => {
  it("resolves a valid secret to its key and tenant, and records use at most once a minute, off the request path", async () => {
    const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name: "agent-1", allowedTools: ["get_invoice"], createdById: a.users.admin.id });
    const auth = await authenticateApiKey(t.db, secret);
    expect(auth?.apiKey).toMatchObject({ id: apiKey.id, tenantId: a.id, label: "api:agent-1", allowedTools: ["get_invoice"] });
    expect(auth?.tenant).toEqual({ id: a.id });
    // Written by the recorder's next flush (a second later, or on disconnect), not by the request.
    await apiKeyUseRecorderFor(t.db).flush();
    const first = (await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    await authenticateApiKey(t.db, secret);
    await apiKeyUseRecorderFor(t.db).flush();
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toEqual(first);
  });

  it("writes the uses of many keys in one statement, and a revoked key's use not at all", async () => {
    const made = await Promise.all(
      ["use-1", "use-2", "use-3"].map((name) => createApiKey(t.db, { tenantId: a.id, name, allowedTools: ["get_invoice"], createdById: a.users.admin.id })),
    );
    const recorder = createApiKeyUseRecorder(t.db, { flushMs: 60_000 });
    for (const { apiKey } of made) recorder.record(apiKey.id);
    await revokeApiKey(t.db, { tenantId: a.id, id: made[2].apiKey.id, actor: adminActor(a) });
    const lastUsed = async () => (await t.db.apiKey.findMany({ where: { id: { in: made.map((m) => m.apiKey.id) } }, orderBy: { name: "asc" } })).map((k) => k.lastUsedAt);
    expect(await lastUsed()).toEqual([null, null, null]);
    await recorder.flush();
    expect(await lastUsed()).toEqual([expect.any(Date), expect.any(Date), null]);
  });

  it("refuses malformed, unknown, tampered and revoked secrets", async () => {
    const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name: "agent-2", allowedTools: ["get_invoice"], createdById: a.users.admin.id });
    expect(await authenticateApiKey(t.db, "not-a-key")).toBeNull();
    expect(await authenticateApiKey(t.db, "")).toBeNull();
    const last = secret.at(-1) === "A" ? "B" : "A";
    // A real key's prefix with another secret: the tenant is known (its log audits it), the caller is told "invalid" all the same.
    expect(await resolveApiKey(t.db, secret.slice(0, -1) + last)).toEqual({
      ok: false, reason: "wrong_secret", key: { id: apiKey.id, tenantId: a.id, prefix: apiKey.prefix, label: "api:agent-2" },
    });
    expect(await resolveApiKey(t.db, `cs_live_000000000000_${"A".repeat(43)}`)).toEqual({ ok: false, reason: "unknown" });

    await revokeApiKey(t.db, { tenantId: a.id, id: apiKey.id, actor: adminActor(a) });
    expect(await authenticateApiKey(t.db, secret)).toBeNull();
    expect(await resolveApiKey(t.db, secret)).toMatchObject({ ok: false, reason: "revoked", key: { tenantId: a.id } });
  });

  it("compares hashes of equal length only, in constant time", () => {
    expect(secretHashesEqual(hashApiKeySecret("a"), hashApiKeySecret("a"))).toBe(true);
    expect(secretHashesEqual(hashApiKeySecret("a"), hashApiKeySecret("b"))).toBe(false);
    expect(secretHashesEqual(hashApiKeySecret("a"), "ab")).toBe(false);
    expect(secretHashesEqual("", "")).toBe(false);
  });
});

describe("revokeApiKey and listApiKeys", () => {
  it("revokes once (audited once), and another tenant's key is not found", async () => {
    const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: "agent-3", allowedTools: ["get_invoice"], createdById: a.users.admin.id });
    expect((await refusal(revokeApiKey(t.db, { tenantId: b.id, id: apiKey.id, actor: adminActor(b) }))).status).toBe(404);
    expect((await refusal(revokeApiKey(t.db, { tenantId: a.id, id: "nope", actor: adminActor(a) }))).status).toBe(404);
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).revokedAt).toBeNull();

    const first = await revokeApiKey(t.db, { tenantId: a.id, id: apiKey.id, actor: adminActor(a) });
    const again = await revokeApiKey(t.db, { tenantId: a.id, id: apiKey.id, actor: adminActor(a) });
    expect(again.revokedAt).toEqual(first.revokedAt);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "api_key.revoked", subjectId: apiKey.id } })).toBe(1);
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, type: "api_key.revoked", subjectId: apiKey.id } });
    expect(event).toMatchObject({
      actorType: "user", actorId: a.users.admin.id, actorLabel: a.users.admin.email, outcome: "ok", subjectType: "api_key",
      actionId: null, tool: null, verdict: null, riskLevel: null, reviewerId: null, requester: null, status: null,
      data: { name: "agent-3", prefix: apiKey.prefix },
    });
    expect(Object.keys(event.data as object).sort()).toEqual(["name", "prefix"]);
  });

  it("of several revocations at once, one revokes and is audited; all report the same time", async () => {
    const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: "agent-4", allowedTools: ["get_invoice"], createdById: a.users.admin.id });
    const results = await Promise.all(Array.from({ length: 8 }, () => revokeApiKey(t.db, { tenantId: a.id, id: apiKey.id, actor: adminActor(a) })));
    expect(new Set(results.map((r) => r.revokedAt.toISOString())).size).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "api_key.revoked", subjectId: apiKey.id } })).toBe(1);
  });

  it("lists the tenant's keys without any hash", async () => {
    const keys = await listApiKeys(t.db, a.id);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(["allowedTools", "createdAt", "createdById", "id", "lastUsedAt", "name", "pausedAt", "prefix", "revokedAt"]);
    expect(await listApiKeys(t.db, b.id)).toEqual([]);
  });
});
