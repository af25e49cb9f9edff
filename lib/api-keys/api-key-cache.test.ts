import { afterAll, describe, expect, it } from "vitest";
import { Client } from "pg";
import { whileActionLocked } from "@/tests/action-lock";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { resolveApiKey } from "@/lib/api-keys/authenticate-api-key";
import { apiKeyCacheFor, createApiKeyCache, type ApiKeyCache } from "@/lib/api-keys/api-key-cache";
import { hashApiKeySecret } from "@/lib/api-keys/api-key-secret";
import { proposeAction } from "@/lib/approvals/propose-action";
import { findScopedAction } from "@/lib/api/load-action-view";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";

/**
 * The cache answers for a valid key without the database and never for a revoked one: revoked in
 * this process, at once; in another, when the notification arrives; not listening, bypassed.
 */
const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const caches: ApiKeyCache[] = [];

afterAll(async () => {
  await Promise.all(caches.map((cache) => cache.close()));
});

/**
 * A listener's connection, LISTEN and notifications arrive when a loaded machine gets to them:
 * waited for, not timed (expect.poll's default is 1 s).
 */
const EVENTUALLY = { timeout: 30_000 };

const admin = () => ({ type: "user" as const, id: a.users.admin.id, label: a.users.admin.email });

async function newKey(name: string) {
  const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name, allowedTools: ["get_invoice"], createdById: a.users.admin.id });
  return { id: apiKey.id, secret, hash: hashApiKeySecret(secret) };
}

/** A cache as another process would hold it: its own listener connection, named so a test can find it. */
async function listeningCache(name: string, options: { retryMs?: number } = {}): Promise<ApiKeyCache> {
  // A heartbeat a loaded machine cannot miss by chance (a 2 s one can, and the cache then empties
  // mid-test): these tests end the connection for real, which the listener notices at once.
  const cache = createApiKeyCache(t.db, { name, heartbeatMs: 30_000, ...options });
  caches.push(cache);
  await expect.poll(() => cache.trusted, EVENTUALLY).toBe(true);
  return cache;
}

/** Ends the listener's connection from the server side, as a restart or a network failure would. */
async function killListener(name: string): Promise<void> {
  const client = new Client({ connectionString: t.url });
  await client.connect();
  const { rowCount } = await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()", [name]);
  await client.end();
  expect(rowCount).toBe(1);
}

describe("the API key cache", () => {
  it("answers a known key from memory, and refuses it on the very next request after this process revokes it", async () => {
    const cache = apiKeyCacheFor(t.db);
    await expect.poll(() => cache.trusted, EVENTUALLY).toBe(true);
    const key = await newKey("cached-here");
    expect(await resolveApiKey(t.db, key.secret)).toMatchObject({ ok: true, value: { apiKey: { id: key.id } } });
    expect(cache.lookup(key.hash)?.apiKey.id).toBe(key.id);

    await revokeApiKey(t.db, { tenantId: a.id, id: key.id, actor: admin() });
    expect(cache.lookup(key.hash)).toBeUndefined();
    expect(await resolveApiKey(t.db, key.secret)).toMatchObject({ ok: false, reason: "revoked", key: { id: key.id } });
  });

  it("drops a key another process revoked when the database's notification arrives, and never stores a read that raced it", async () => {
    const elsewhere = await listeningCache("cache-elsewhere");
    const key = await newKey("cached-elsewhere");
    expect(await resolveApiKey(t.db, key.secret, elsewhere)).toMatchObject({ ok: true });
    expect(elsewhere.lookup(key.hash)?.apiKey.id).toBe(key.id);

    // A read that began before the revocation and ends after its notification is not kept.
    const mark = elsewhere.mark();
    // Revoked by a plain statement on another connection: nothing in this process is told.
    const other = new Client({ connectionString: t.url });
    await other.connect();
    await other.query(`UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1`, [key.id]);
    await other.end();
    await expect.poll(() => elsewhere.lookup(key.hash), EVENTUALLY).toBeUndefined();
    elsewhere.store(key.hash, { apiKey: { id: key.id, tenantId: a.id, name: "x", prefix: "x", allowedTools: [], label: "api:x" }, tenant: { id: a.id } }, mark);
    expect(elsewhere.lookup(key.hash)).toBeUndefined();
    expect(await resolveApiKey(t.db, key.secret, elsewhere)).toMatchObject({ ok: false, reason: "revoked" });
  });

  it("a change to a key's lastUsedAt is not announced; its deletion is", async () => {
    const watcher = await listeningCache("cache-watcher");
    const kept = await newKey("kept");
    const deleted = await newKey("deleted");
    for (const key of [kept, deleted]) expect(await resolveApiKey(t.db, key.secret, watcher)).toMatchObject({ ok: true });
    await t.db.apiKey.update({ where: { id: kept.id }, data: { lastUsedAt: new Date() } });
    await t.db.apiKey.delete({ where: { id: deleted.id } });
    await expect.poll(() => watcher.lookup(deleted.hash), EVENTUALLY).toBeUndefined();
    expect(watcher.lookup(kept.hash)?.apiKey.id).toBe(kept.id);
    expect(await resolveApiKey(t.db, deleted.secret, watcher)).toMatchObject({ ok: false, reason: "unknown" });
  });

  it("is emptied and bypassed while its listener is down, so a revocation it could not hear about still counts", async () => {
    // Down for the rest of this test: the first reconnect is a minute away.
    const cache = await listeningCache("cache-down", { retryMs: 60_000 });
    const revoked = await newKey("revoked-while-down");
    const valid = await newKey("valid-while-down");
    expect(await resolveApiKey(t.db, revoked.secret, cache)).toMatchObject({ ok: true });
    expect(cache.lookup(revoked.hash)).toBeDefined();

    await killListener("cache-down");
    await expect.poll(() => cache.trusted, EVENTUALLY).toBe(false);
    expect(cache.lookup(revoked.hash)).toBeUndefined();
    // Its notification goes to no listener of this cache.
    await revokeApiKey(t.db, { tenantId: a.id, id: revoked.id, actor: admin() });
    expect(await resolveApiKey(t.db, revoked.secret, cache)).toMatchObject({ ok: false, reason: "revoked" });
    // Valid keys are still served, from the database, and not kept.
    expect(await resolveApiKey(t.db, valid.secret, cache)).toMatchObject({ ok: true });
    expect(cache.lookup(valid.hash)).toBeUndefined();
  });

  it("listens again after its connection is lost, starting empty", async () => {
    const cache = await listeningCache("cache-again");
    const key = await newKey("before-the-loss");
    expect(await resolveApiKey(t.db, key.secret, cache)).toMatchObject({ ok: true });
    await killListener("cache-again");
    await expect.poll(() => cache.trusted, EVENTUALLY).toBe(false);
    await expect.poll(() => cache.trusted, EVENTUALLY).toBe(true);
    expect(cache.lookup(key.hash)).toBeUndefined();
    expect(await resolveApiKey(t.db, key.secret, cache)).toMatchObject({ ok: true });
    expect(cache.lookup(key.hash)?.apiKey.id).toBe(key.id);
  });
});

describe("statements that act for a key", () => {
  const cancel = { tool: "cancel_invoice", args: { invoice_number: "INV-1045", reason: "duplicate" } };
  const asKey = (id: string) => ({ type: "api_key" as const, apiKeyId: id, label: "api:x" });

  it("refuse a key revoked after it was authenticated (a cache elsewhere not yet told): no proposal is written, no action is read", async () => {
    const key = await newKey("revoked-mid-request");
    const live = await newKey("still-live");
    const first = await proposeAction(t.db, { tenantId: a.id, requester: asKey(key.id), ...cancel });
    expect(first.state).toBe("pending");
    const before = await t.db.action.count({ where: { tenantId: a.id } });

    // Revoked on another connection; whatever any cache still holds, these statements read the key.
    const other = new Client({ connectionString: t.url });
    await other.connect();
    await other.query(`UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1`, [key.id]);
    await other.end();

    // Side by side with a live key's proposal (they may share a batched statement): each row is judged by its own key.
    const [refused, written] = await Promise.allSettled([
      proposeAction(t.db, { tenantId: a.id, requester: asKey(key.id), ...cancel }),
      proposeAction(t.db, { tenantId: a.id, requester: asKey(live.id), ...cancel }),
    ]);
    expect(refused).toMatchObject({ status: "rejected", reason: { code: "api_key_revoked", status: 401 } });
    expect(written).toMatchObject({ status: "fulfilled", value: { state: "pending" } });
    expect(await t.db.action.count({ where: { tenantId: a.id } })).toBe(before + 1);
    expect(await t.db.action.count({ where: { tenantId: a.id, requesterApiKeyId: key.id } })).toBe(1);

    await expect(findScopedAction(t.db, { tenantId: a.id, actionId: first.actionId, apiKeyId: key.id })).rejects.toMatchObject({ code: "api_key_revoked", status: 401 });
    // A member of the tenant still sees the action.
    expect(await findScopedAction(t.db, { tenantId: a.id, actionId: first.actionId, apiKeyId: null })).toMatchObject({ id: first.actionId });
  });

  it("refuse to execute an approved action once the key that proposed it is revoked, also when the revocation commits while the execution waits for the action's lock", async () => {
    const key = await newKey("revoked-while-executing");
    const proposed = await proposeAction(t.db, { tenantId: a.id, requester: asKey(key.id), ...cancel });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    await decideAction(t.db, { tenantId: a.id, actionId: proposed.actionId, reviewer: a.users.reviewer.member, verdict: "approve", payloadHash: proposed.payloadHash });
    // The agent's execute request has passed every check before the claim (findScopedAction: the
    // key was live); another connection holds the action's row, so the claim waits for it.
    await findScopedAction(t.db, { tenantId: a.id, actionId: proposed.actionId, apiKeyId: key.id });
    const executing = await whileActionLocked(t.url, proposed.actionId, async (waiters) => {
      const run = executeAction(t.db, { tenantId: a.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" }, actor: asKey(key.id) })
        .then((outcome) => ({ outcome }), (error: unknown) => ({ error }));
      await waiters(1);
      await revokeApiKey(t.db, { tenantId: a.id, id: key.id, actor: admin() });
      return { run };
    });
    expect(await executing.run).toMatchObject({ error: { code: "api_key_revoked", status: 409 } });
    expect(await t.db.execution.count({ where: { actionId: proposed.actionId } })).toBe(0);
    expect((await t.db.invoice.findFirstOrThrow({ where: { tenantId: a.id, number: "INV-1045" } })).status).toBe("open");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).status).toBe("approved");
  });
});
