import { describe, expect, it } from "vitest";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { resolveApiKey } from "@/lib/api-keys/authenticate-api-key";
import { createApiKeyFailureAudit, type ApiKeyFailureAudit } from "@/lib/api-keys/audit-api-key-failure";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

async function newKey(name: string, allowedTools = ["get_invoice"]) {
  const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name, allowedTools, createdById: a.users.admin.id });
  return { ...apiKey, secret };
}

/** A secret with the key's prefix and another random part. */
const wrongSecretFor = (secret: string) => secret.slice(0, -4) + (secret.endsWith("AAAA") ? "BBBB" : "AAAA");

/** What apiRoute does with a bearer secret: resolve it, and count a refusal that names a real key. */
async function present(audit: ApiKeyFailureAudit, bearer: string): Promise<string> {
  const resolved = await resolveApiKey(t.db, bearer);
  if (resolved.ok) return "ok";
  if (resolved.key && (resolved.reason === "wrong_secret" || resolved.reason === "revoked")) audit.note(resolved.key, resolved.reason);
  return resolved.reason;
}

const eventsFor = (keyId: string) => t.db.auditEvent.findMany({ where: { type: "api_key.auth_failed", subjectId: keyId }, orderBy: { id: "asc" } });
const asJson = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

describe("api_key.auth_failed", () => {
  it("one wrong secret for a real key's prefix leaves one event in the key's tenant, without the secret", async () => {
    const key = await newKey("one-miss");
    const audit = createApiKeyFailureAudit(t.db);
    const wrong = wrongSecretFor(key.secret);
    expect(await present(audit, wrong)).toBe("wrong_secret");
    await audit.flush();

    const events = await eventsFor(key.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      tenantId: a.id, outcome: "refused", actorType: "api_key", actorId: key.id, actorLabel: "api:one-miss", subjectType: "api_key", status: "wrong_secret",
      data: { prefix: key.prefix, reason: "wrong_secret", attempts: 1, coalesced: { windowSeconds: 60, scope: "process" } },
    });
    const json = asJson(events[0]);
    expect(json).not.toContain(wrong);
    expect(json).not.toContain(key.secret);
    expect(json).not.toContain(wrong.slice(-43)); // its random part, which may itself contain "_"
  });

  it("a burst of 50 wrong secrets leaves one event with the count, not 50; the next window gets its own", async () => {
    const key = await newKey("hammered");
    const audit = createApiKeyFailureAudit(t.db);
    const reasons = await Promise.all(Array.from({ length: 50 }, () => present(audit, wrongSecretFor(key.secret))));
    expect(new Set(reasons)).toEqual(new Set(["wrong_secret"]));
    expect(await eventsFor(key.id)).toHaveLength(0); // nothing is written while the window is open
    await audit.flush();

    const events = await eventsFor(key.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ reason: "wrong_secret", attempts: 50 });
    const { firstAt, lastAt } = (events[0].data as { coalesced: { firstAt: string; lastAt: string } }).coalesced;
    expect(Date.parse(lastAt)).toBeGreaterThanOrEqual(Date.parse(firstAt));

    await present(audit, wrongSecretFor(key.secret));
    await audit.flush();
    expect((await eventsFor(key.id)).map((e) => (e.data as { attempts: number }).attempts)).toEqual([50, 1]);
  });

  it("the window closes on its own: one event per key and reason, written when it ends", async () => {
    const key = await newKey("windowed");
    const audit = createApiKeyFailureAudit(t.db, { windowMs: 200 });
    for (let i = 0; i < 5; i++) await present(audit, wrongSecretFor(key.secret));
    await expect.poll(async () => (await eventsFor(key.id)).length, { timeout: 5_000 }).toBe(1);
    expect((await eventsFor(key.id))[0].data).toMatchObject({ attempts: 5, coalesced: { windowSeconds: 0 } });
  });

  it("a revoked key and a tool outside the scope are audited per reason; an unknown prefix or a malformed secret nowhere", async () => {
    const key = await newKey("retired");
    const audit = createApiKeyFailureAudit(t.db);
    await revokeApiKey(t.db, { tenantId: a.id, id: key.id, actor: { type: "user", id: a.users.admin.id, label: a.users.admin.email } });
    expect(await present(audit, key.secret)).toBe("revoked");
    expect(await present(audit, key.secret)).toBe("revoked");
    audit.note({ id: key.id, tenantId: a.id, prefix: key.prefix, label: "api:retired" }, "tool_not_allowed", "run_python");
    audit.note({ id: key.id, tenantId: a.id, prefix: key.prefix, label: "api:retired" }, "tool_not_allowed", "cancel_invoice");

    const before = await t.db.auditEvent.count({ where: { type: "api_key.auth_failed" } });
    expect(await present(audit, `cs_live_000000000000_${"A".repeat(43)}`)).toBe("unknown");
    expect(await present(audit, "not-a-key")).toBe("malformed");
    await audit.flush();

    // One flush writes its windows concurrently, so their order is not part of the contract.
    const events = (await eventsFor(key.id)).sort((x, y) => (x.status ?? "").localeCompare(y.status ?? ""));
    expect(events.map((e) => [e.status, (e.data as { attempts: number }).attempts])).toEqual([["revoked", 2], ["tool_not_allowed", 2]]);
    expect(events[1].data).toMatchObject({ tools: ["run_python", "cancel_invoice"] });
    expect(await t.db.auditEvent.count({ where: { type: "api_key.auth_failed" } })).toBe(before + 2);
    expect(asJson(events)).not.toContain(key.secret);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });
});
