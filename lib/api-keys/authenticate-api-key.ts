import type { Db } from "@/lib/db/client";
import { apiKeyLabel, type AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { hashApiKeySecret, parseApiKeySecret, secretHashesEqual } from "@/lib/api-keys/api-key-secret";
import { apiKeyCacheFor, type ApiKeyCache } from "@/lib/api-keys/api-key-cache";
import { apiKeyUseRecorderFor } from "@/lib/api-keys/record-api-key-use";
import { readApiKeyByPrefix } from "@/lib/db/statements/api-keys/read-api-key-by-prefix";

/**
 * Why a bearer secret was refused. `wrong_secret` (a real key's prefix with another secret) is
 * told to the caller exactly like `unknown`; only the key's tenant's audit log tells them apart.
 */
export type ApiKeyRefusal = "malformed" | "unknown" | "wrong_secret" | "revoked";

/** The key a refused secret named by its prefix, when there is one: whose tenant audits the refusal. */
export type RefusedApiKey = { id: string; tenantId: string; prefix: string; label: string };

// Compared against when the prefix is unknown, so both paths hash and compare.
const DUMMY_HASH = hashApiKeySecret("cs_live_000000000000_not-a-key");

/**
 * Resolves a bearer secret to its key and tenant, or says why not: from memory for a valid key seen
 * here (api-key-cache.ts), else from the database with the hash compared in constant time. The use
 * is recorded for `lastUsedAt` off the request path (record-api-key-use.ts).
 */
export async function resolveApiKey(
  db: Db,
  bearer: string,
  cache: ApiKeyCache = apiKeyCacheFor(db),
): Promise<{ ok: true; value: AuthenticatedApiKey } | { ok: false; reason: ApiKeyRefusal; key?: RefusedApiKey }> {
  const secret = bearer.trim();
  const parsed = parseApiKeySecret(secret);
  if (!parsed) return { ok: false, reason: "malformed" };
  // Also the cache's key: a hit means the presented secret hashes to a valid key's stored hash.
  const presented = hashApiKeySecret(secret);
  const cached = cache.lookup(presented);
  if (cached) {
    apiKeyUseRecorderFor(db).record(cached.apiKey.id);
    return { ok: true, value: cached };
  }

  const mark = cache.mark();
  const key = await readApiKeyByPrefix(db, { prefix: parsed.prefix });
  const matches = secretHashesEqual(presented, key?.secretHash ?? DUMMY_HASH);
  if (!key) return { ok: false, reason: "unknown" };
  const refused = { id: key.id, tenantId: key.tenantId, prefix: key.prefix, label: apiKeyLabel(key.name) };
  if (!matches) return { ok: false, reason: "wrong_secret", key: refused };
  if (key.revoked) return { ok: false, reason: "revoked", key: refused };

  const value: AuthenticatedApiKey = {
    apiKey: { id: key.id, tenantId: key.tenantId, name: key.name, prefix: key.prefix, allowedTools: key.allowedTools, label: apiKeyLabel(key.name) },
    tenant: { id: key.tenantId },
  };
  cache.store(presented, value, mark);
  apiKeyUseRecorderFor(db).record(key.id);
  return { ok: true, value };
}

/** The key and tenant for a bearer secret; null for anything unknown, malformed or revoked. */
export async function authenticateApiKey(db: Db, bearer: string): Promise<AuthenticatedApiKey | null> {
  const result = await resolveApiKey(db, bearer);
  return result.ok ? result.value : null;
}
