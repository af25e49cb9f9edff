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
 * A key and the tenant it acts in. Only the tenant's id: it never changes, while its name,
 * slug and domains may, and nothing a key's request does reads them from here (a proposal reads
 * the tenant's domains with its policy and writes only if they are still those).
 */
export type AuthenticatedApiKey = {
  apiKey: { id: string; tenantId: string; name: string; prefix: string; allowedTools: string[]; label: string };
  tenant: { id: string };
};
