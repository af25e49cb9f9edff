import { z } from "zod";
import { getDb, type Db } from "@/lib/db/client";
import { AppError, describeInvalid, inputIssues, MAX_LISTED_ISSUES, toPublicError } from "@/lib/errors";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import type { Requester } from "@/lib/approvals/actors";
import { apiKeyFailureAuditFor } from "@/lib/api-keys/audit-api-key-failure";
import { resolveApiKey, type AuthenticatedApiKey } from "@/lib/api-keys/authenticate-api-key";
import type { ApiRouteDefinition } from "@/lib/api/api-routes";
import { readJsonBody } from "@/lib/api/read-json-body";
import { apiKeyRateLimitKey, consumeRateLimit } from "@/lib/api/rate-limit";
import { auditRequestRefusal } from "@/lib/server/boundary";
import { assertSameOrigin } from "@/lib/server/request-origin";

export type ApiContext<B, Q> = {
  request: Request;
  db: Db;
  key: AuthenticatedApiKey["apiKey"];
  tenant: AuthenticatedApiKey["tenant"];
  /** The agent as the audit log and the approval core see it. */
  actor: AuditActor;
  requester: Extract<Requester, { type: "api_key" }>;
  body: B;
  query: Q;
  /** Dynamic route segments, e.g. `id`. */
  params: Record<string, string>;
};

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** The JSON error shape every /api/v1 refusal uses. */
export function apiErrorResponse(error: unknown, context: string, headers?: HeadersInit): Response {
  const { status, body } = toPublicError(error, context);
  const out = new Headers(headers);
  out.set("Cache-Control", "no-store");
  if (status === 401) out.set("WWW-Authenticate", 'Bearer realm="countersign"');
  if (error instanceof AppError && error.code === "rate_limited") {
    const details = error.details as { retryAfterSeconds: number } | undefined;
    out.set("Retry-After", String(details?.retryAfterSeconds ?? 1));
  }
  return Response.json({ error: body }, { status, headers: out });
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

/**
 * A refusal after authentication that the key's tenant audits as `api_key.auth_failed`
 * (coalesced), not as `api.refused`: a tool outside the key's scope, or the key revoked since this
 * process cached it (the statement that acts for a key re-checks it).
 */
function keyRefusalOf(error: unknown): { reason: "tool_not_allowed" | "revoked"; tool?: string } | null {
  if (!(error instanceof AppError)) return null;
  if (error.code === "api_key_revoked") return { reason: "revoked" };
  if (error.code !== "tool_not_allowed") return null;
  const tool = (error.details as { tool?: unknown } | undefined)?.tool;
  return { reason: "tool_not_allowed", tool: typeof tool === "string" ? tool : "" };
}

/**
 * The agent API's side of the request boundary (lib/server/boundary.ts): refuse cross-site browser
 * requests, authenticate the bearer key (never cookies), count the request against the key's rate
 * limit, read the body with a size cap and parse it strictly, validate body and query with the
 * route's zod schemas (unknown keys refused), run the handler, and map every error to
 * `{ error: { code, message, details? } }`. Every refusal after authentication that the domain
 * did not audit itself is audited here. Refused uses of a real key — a wrong secret for its
 * prefix, a revoked key, a tool outside its scope — are audited in its tenant as
 * `api_key.auth_failed`, at most once per key and reason per minute with a count
 * (lib/api-keys/audit-api-key-failure.ts), so hammering a key cannot flood the log or slow the API.
 */
export function apiRoute<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(
  definition: ApiRouteDefinition<B, Q>,
  handler: (ctx: ApiContext<Infer<B>, Infer<Q>>) => Promise<Response>,
): (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> {
  const name = definition.operationId;
  return async (request, context) => {
    let authenticated: AuthenticatedApiKey | null = null;
    const db = getDb();
    try {
      // Keys are never attached by a browser on its own, so an agent may send no Origin at all.
      assertSameOrigin(request.headers, { cookieAuthenticated: false, stateChanging: definition.method !== "GET" });

      const bearer = bearerFrom(request);
      if (!bearer) throw new AppError("unauthenticated", "Send an API key as `Authorization: Bearer <api key>`.", 401);
      const resolved = await resolveApiKey(db, bearer);
      if (!resolved.ok) {
        if (resolved.key && (resolved.reason === "wrong_secret" || resolved.reason === "revoked")) {
          apiKeyFailureAuditFor(db).note(resolved.key, resolved.reason);
        }
        throw new AppError(resolved.reason === "revoked" ? "api_key_revoked" : "invalid_api_key", AUTH_MESSAGES[resolved.reason], 401);
      }
      authenticated = resolved.value;

      const limit = await consumeRateLimit(db, apiKeyRateLimitKey(authenticated.apiKey.id));
      if (!limit.allowed) {
        // Not audited: a flood of refusals would flood the chain; the counter is the record.
        throw new AppError("rate_limited", `Rate limit of ${limit.limit} requests per window exceeded; retry in ${limit.retryAfterSeconds} s.`, 429, {
          limit: limit.limit, retryAfterSeconds: limit.retryAfterSeconds, resetAt: limit.resetAt.toISOString(),
        });
      }

      const body = definition.body ? await parseBody(request, definition) : undefined;
      const query = definition.query ? parseWith(definition.query, Object.fromEntries(new URL(request.url).searchParams), "invalid_query") : undefined;
      const params = (await context.params) ?? {};
      const { apiKey, tenant } = authenticated;
      return await handler({
        request, db, key: apiKey, tenant,
        actor: { type: "api_key", id: apiKey.id, label: apiKey.label },
        requester: { type: "api_key", apiKeyId: apiKey.id, label: apiKey.label },
        body: body as Infer<B>, query: query as Infer<Q>, params,
      });
    } catch (error) {
      const keyRefusal = authenticated && keyRefusalOf(error);
      if (authenticated && keyRefusal) {
        const { apiKey } = authenticated;
        apiKeyFailureAuditFor(db).note({ id: apiKey.id, tenantId: apiKey.tenantId, prefix: apiKey.prefix, label: apiKey.label }, keyRefusal.reason, keyRefusal.tool);
      } else if (authenticated) {
        const { apiKey, tenant } = authenticated;
        await auditRequestRefusal({ tenantId: tenant.id, actor: { type: "api_key", id: apiKey.id, label: apiKey.label }, surface: "api", operation: name, error });
      }
      return apiErrorResponse(error, `api ${name}`);
    }
  };
}

async function parseBody(request: Request, definition: ApiRouteDefinition): Promise<unknown> {
  const raw = await readJsonBody(request);
  if (raw === undefined) {
    if (definition.bodyRequired) throw new AppError("invalid_input", "This request needs a JSON body.", 400);
    return parseWith(definition.body!, {}, "invalid_input");
  }
  return parseWith(definition.body!, raw, "invalid_input");
}

function parseWith(schema: z.ZodType, value: unknown, code: string): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError(code, describeInvalid(parsed.error), 400, {
      issues: inputIssues(parsed.error).slice(0, MAX_LISTED_ISSUES).map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message, code: issue.code })),
    });
  }
  return parsed.data;
}
