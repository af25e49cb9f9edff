import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { apiKeyFailureAuditFor } from "@/lib/api-keys/audit-api-key-failure";
import { resolveApiKey } from "@/lib/api-keys/authenticate-api-key";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { apiKeyRateLimitKey, consumeRateLimit } from "@/lib/api/rate-limit";
import { assertSameOrigin } from "@/lib/net/request-origin";

/**
 * The part of the request boundary every agent surface shares — the HTTP API (/api/v1,
 * lib/api/api-route.ts) and the MCP endpoint (/api/mcp, lib/mcp/handle-mcp-request.ts): refuse
 * cross-site browser requests, authenticate the bearer key (never cookies), and count the request
 * against the key's rate limit. Refused uses of a real key — a wrong secret for its prefix, a
 * revoked key — are audited in its tenant as `api_key.auth_failed`, at most once per key and
 * reason per minute with a count (lib/api-keys/audit-api-key-failure.ts), so hammering a key
 * cannot flood the log or slow the API.
 */
export async function authenticateAgentRequest(db: Db, request: Request, options: { stateChanging: boolean }): Promise<AuthenticatedApiKey> {
  // Keys are never attached by a browser on its own, so an agent may send no Origin at all.
  assertSameOrigin(request.headers, { cookieAuthenticated: false, stateChanging: options.stateChanging });

  const bearer = bearerFrom(request);
  if (!bearer) throw new AppError("unauthenticated", "Send an API key as `Authorization: Bearer <api key>`.", 401);
  const resolved = await resolveApiKey(db, bearer);
  if (!resolved.ok) {
    if (resolved.key && (resolved.reason === "wrong_secret" || resolved.reason === "revoked")) {
      apiKeyFailureAuditFor(db).note(resolved.key, resolved.reason);
    }
    throw new AppError(resolved.reason === "revoked" ? "api_key_revoked" : "invalid_api_key", AUTH_MESSAGES[resolved.reason], 401);
  }

  const limit = await consumeRateLimit(db, apiKeyRateLimitKey(resolved.value.apiKey.id));
  if (!limit.allowed) {
    // Not audited: a flood of refusals would flood the chain; the counter is the record.
    throw new AppError("rate_limited", `Rate limit of ${limit.limit} requests per window exceeded; retry in ${limit.retryAfterSeconds} s.`, 429, {
      limit: limit.limit, retryAfterSeconds: limit.retryAfterSeconds, resetAt: limit.resetAt.toISOString(),
    });
  }
  return resolved.value;
}

/**
 * Audits a refusal after authentication that concerns the key itself as `api_key.auth_failed`
 * (coalesced), not as a refused request: a tool outside the key's scope, or the key revoked since
 * this process cached it (the statement that acts for a key re-checks it). False: `error` is not
 * such a refusal, and the caller records it as it records other refusals.
 */
export function noteApiKeyRefusal(db: Db, apiKey: AuthenticatedApiKey["apiKey"], error: unknown): boolean {
  const refusal = keyRefusalOf(error);
  if (!refusal) return false;
  apiKeyFailureAuditFor(db).note({ id: apiKey.id, tenantId: apiKey.tenantId, prefix: apiKey.prefix, label: apiKey.label }, refusal.reason, refusal.tool);
  return true;
}

/** The headers an agent-facing refusal carries: no caching, how to authenticate, when to retry. */
export function agentRefusalHeaders(error: unknown, status: number, headers?: HeadersInit): Headers {
  const out = new Headers(headers);
  out.set("Cache-Control", "no-store");
  if (status === 401) out.set("WWW-Authenticate", 'Bearer realm="countersign"');
  if (error instanceof AppError && error.code === "rate_limited") {
    const details = error.details as { retryAfterSeconds: number } | undefined;
    out.set("Retry-After", String(details?.retryAfterSeconds ?? 1));
  }
  return out;
}

function bearerFrom(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("invalid_api_key", "Send the key as `Authorization: Bearer <api key>`.", 401);
  return match[1];
}

const AUTH_MESSAGES = {
  malformed: "That is not a Countersign API key.",
  unknown: "That API key is not valid.",
  // Said exactly like `unknown`: the caller must not learn that the prefix is a real key's.
  wrong_secret: "That API key is not valid.",
  revoked: "That API key has been revoked.",
} as const;

function keyRefusalOf(error: unknown): { reason: "tool_not_allowed" | "revoked"; tool?: string } | null {
  if (!(error instanceof AppError)) return null;
  if (error.code === "api_key_revoked") return { reason: "revoked" };
  if (error.code !== "tool_not_allowed") return null;
  const tool = (error.details as { tool?: unknown } | undefined)?.tool;
  return { reason: "tool_not_allowed", tool: typeof tool === "string" ? tool : "" };
}
