import type { Db } from "@/lib/db/client";
import { flushedPerClient } from "@/lib/db/flush-on-signals";
import { isClosed } from "@/lib/db/sql";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import type { AuditEventData } from "@/lib/audit/audit-event-types";
import { createFailureCoalescer, type FailureCoalescer } from "@/lib/auth/coalesce-failures";
import type { RefusedApiKey } from "@/lib/api-keys/authenticate-api-key";

export type ApiKeyFailureReason = AuditEventData<"api_key.auth_failed">["reason"];

/** At most one `api_key.auth_failed` per key and reason per this window, per process. */
export const API_KEY_FAILURE_WINDOW_MS = 60_000;
const MAX_TOOLS_LISTED = 10;

type Detail = { key: RefusedApiKey; reason: ApiKeyFailureReason; tools: string[] };

export type ApiKeyFailureAudit = {
  /** Counts one refused use of a known key: a wrong secret, a revoked key, a tool outside its scope. Never the secret. */
  note(key: RefusedApiKey, reason: ApiKeyFailureReason, tool?: string): void;
  flush(): Promise<void>;
};

/**
 * Refused uses of a key the prefix matched, audited in its tenant as `api_key.auth_failed`,
 * coalesced in memory (anyone who knows a prefix can send them at line rate): at most one event per
 * key and reason per minute, with the count. An unmatched prefix has no tenant: not audited. Best effort.
 */
export function createApiKeyFailureAudit(db: Db, options: { windowMs?: number } = {}): ApiKeyFailureAudit {
  const coalescer: FailureCoalescer<Detail> = createFailureCoalescer<Detail>({
    windowMs: options.windowMs ?? API_KEY_FAILURE_WINDOW_MS,
    maxKeys: 10_000,
    label: "refused API-key uses",
    merge: (kept, next) => ({
      ...kept,
      tools: kept.tools.length >= MAX_TOOLS_LISTED ? kept.tools : [...new Set([...kept.tools, ...next.tools])].slice(0, MAX_TOOLS_LISTED),
    }),
    write: async ({ detail, attempts, firstAt, lastAt, windowSeconds }) => {
      if (isClosed(db)) return;
      const { key, reason, tools } = detail;
      await appendAuditEvent(db, {
        tenantId: key.tenantId, actor: { type: "api_key", id: key.id, label: key.label }, type: "api_key.auth_failed", outcome: "refused",
        subject: { type: "api_key", id: key.id }, requester: key.label, status: reason,
        data: {
          prefix: key.prefix, reason, attempts,
          coalesced: { windowSeconds, firstAt: firstAt.toISOString(), lastAt: lastAt.toISOString(), scope: "process" },
          ...(reason === "tool_not_allowed" && { tools }),
        },
      });
    },
  });
  return {
    note(key, reason, tool) {
      coalescer.note(`${key.id}\n${reason}`, { key, reason, tools: tool === undefined ? [] : [tool.slice(0, 64)] });
    },
    flush: () => coalescer.flush(),
  };
}

/** The process's refused-key audit for the client, flushed before it disconnects and on SIGTERM/SIGINT. */
export function apiKeyFailureAuditFor(db: Db): ApiKeyFailureAudit {
  return flushedPerClient("apiKeyFailureAudit", db, () => createApiKeyFailureAudit(db));
}
