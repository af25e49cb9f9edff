/** What may be shown about a key: never its hash. */
export type ApiKeySummary = {
  id: string;
  name: string;
  prefix: string;
  allowedTools: string[];
  createdAt: Date;
};

export type ApiKeyListItem = ApiKeySummary & {
  createdById: string | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  pausedAt: Date | null;
};

export const API_KEY_PUBLIC_SELECT = {
  id: true,
  name: true,
  prefix: true,
  allowedTools: true,
  createdAt: true,
  createdById: true,
  lastUsedAt: true,
  revokedAt: true,
  pausedAt: true,
} as const;

/** How an agent is named in lists and the audit log. */
export function apiKeyLabel(name: string): string {
  return `api:${name}`;
}

/**
 * A key and its tenant, by id only: the tenant's name, slug and domains may change, and a key's
 * request reads them afresh where it needs them (a proposal writes only if its domains still hold).
 */
export type AuthenticatedApiKey = {
  apiKey: { id: string; tenantId: string; name: string; prefix: string; allowedTools: string[]; label: string };
  tenant: { id: string };
};
