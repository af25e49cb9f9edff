import type { Db } from "@/lib/db/client";
import { apiKeyLabel } from "@/lib/api-keys/api-key-summary";
import { hashApiKeySecret, parseApiKeySecret, secretHashesEqual } from "@/lib/api-keys/api-key-secret";
import { touchApiKeyLastUsed } from "@/lib/db/statements/touch-api-key-last-used";

export type AuthenticatedApiKey = {
  apiKey: { id: string; tenantId: string; name: string; prefix: string; allowedTools: string[]; label: string };
  tenant: { id: string; slug: string; name: string; domains: string[] };
};

export type ApiKeyRefusal = "malformed" | "unknown" | "revoked";

/** lastUsedAt is a hint for admins: written at most once a minute per key, not on every request. */
const LAST_USED_RESOLUTION_SECONDS = 60;
// Compared against when the prefix is unknown, so both paths hash and compare.
const DUMMY_HASH = hashApiKeySecret("cs_live_000000000000_not-a-key");

/**
 * Resolves a bearer secret to its key and tenant, or says why not. The hash comparison is
 * constant-time; revoked keys are refused.
 */
export async function resolveApiKey(
  db: Db,
  bearer: string,
): Promise<{ ok: true; value: AuthenticatedApiKey } | { ok: false; reason: ApiKeyRefusal; tenantId?: string; keyId?: string }> {
  const parsed = parseApiKeySecret(bearer.trim());
  if (!parsed) return { ok: false, reason: "malformed" };
  const presented = hashApiKeySecret(bearer.trim());
  const key = await db.apiKey.findUnique({
    where: { prefix: parsed.prefix },
    select: {
      id: true, tenantId: true, name: true, prefix: true, allowedTools: true, revokedAt: true, secretHash: true,
      tenant: { select: { id: true, slug: true, name: true, domains: true } },
    },
  });
  const matches = secretHashesEqual(presented, key?.secretHash ?? DUMMY_HASH);
  if (!key || !matches) return { ok: false, reason: "unknown" };
  if (key.revokedAt) return { ok: false, reason: "revoked", tenantId: key.tenantId, keyId: key.id };

  await touchApiKeyLastUsed(db, { apiKeyId: key.id, resolutionSeconds: LAST_USED_RESOLUTION_SECONDS });
  return {
    ok: true,
    value: {
      apiKey: { id: key.id, tenantId: key.tenantId, name: key.name, prefix: key.prefix, allowedTools: key.allowedTools, label: apiKeyLabel(key.name) },
      tenant: key.tenant,
    },
  };
}

/** The key and tenant for a bearer secret; null for anything unknown, malformed or revoked. */
export async function authenticateApiKey(db: Db, bearer: string): Promise<AuthenticatedApiKey | null> {
  const result = await resolveApiKey(db, bearer);
  return result.ok ? result.value : null;
}
