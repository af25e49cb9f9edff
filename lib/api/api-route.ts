import { z } from "zod";
import { getDb, type Db } from "@/lib/db/client";
import { AppError, describeInvalid, inputIssues, MAX_LISTED_ISSUES, toPublicError } from "@/lib/errors";
import type { AuditActor } from "@/lib/audit/append-audit-event";
import type { Requester } from "@/lib/approvals/actors";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { agentRefusalHeaders, authenticateAgentRequest, noteApiKeyRefusal } from "@/lib/api/agent-request";
import type { ApiRouteDefinition } from "@/lib/api/api-routes";
import { readJsonBody } from "@/lib/api/read-json-body";
import { auditRequestRefusal } from "@/lib/audit/audit-request-refusal";

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
  return Response.json({ error: body }, { status, headers: agentRefusalHeaders(error, status, headers) });
}

/**
 * The agent API's side of the request boundary (lib/server/boundary.ts): the checks every agent
 * surface shares (lib/api/agent-request.ts: same-origin, bearer key, rate limit, audited key
 * refusals), then read the body with a size cap and parse it strictly, validate body and query
 * with the route's zod schemas (unknown keys refused), run the handler, and map every error to
 * `{ error: { code, message, details? } }`. Every refusal after authentication that the domain
 * did not audit itself is audited here — a tool outside the key's scope or a key revoked
 * meanwhile as `api_key.auth_failed` (coalesced), anything else as `api.refused`.
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
      authenticated = await authenticateAgentRequest(db, request, { stateChanging: definition.method !== "GET" });

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
      if (authenticated && !noteApiKeyRefusal(db, authenticated.apiKey, error)) {
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
