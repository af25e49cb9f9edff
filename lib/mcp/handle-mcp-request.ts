import { CancelledNotificationSchema, ErrorCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { getDb, type Db } from "@/lib/db/client";
import { AppError, toPublicError } from "@/lib/errors";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { auditRequestRefusal } from "@/lib/audit/audit-request-refusal";
import { agentRefusalHeaders, authenticateAgentRequest } from "@/lib/api/agent-request";
import { readJsonBody } from "@/lib/api/read-json-body";
import { publicOrigins } from "@/lib/net/request-origin";
import { cancelMcpCall } from "@/lib/db/statements/mcp/mcp-sessions";
import { isUuid } from "@/lib/db/uuid";
import { cancellationReason } from "@/lib/mcp/create-gateway-server";
import { continueMcpSession, endMcpSession, initializeMcpSession, withdrawCalls } from "@/lib/mcp/mcp-sessions";

/** JSON-RPC's implementation-defined server error (MCP's transport uses it for HTTP-level refusals too). */
const SERVER_ERROR = -32000;
/** What MCP's transport answers for an unknown session. */
const SESSION_NOT_FOUND = -32001;

export type McpRequestOptions = {
  /** The database client: the app's by default (tests run two "instances" over one database). */
  db?: Db;
  /** How often a waiting call reports progress (tests shorten it). */
  progressIntervalMs?: number;
};

/**
 * `/api/mcp`: Countersign as a Streamable HTTP MCP server. Every request passes the agent
 * boundary the HTTP API uses (lib/api/agent-request.ts: same-origin, bearer key, rate limit,
 * audited key refusals); a POST body is read with the API's size cap and parsed as strictly;
 * then the request goes to its session (mcp-sessions.ts: kept in the database, so any instance
 * serves it), or — an `initialize` without a session id — starts one. GET is answered 405: the
 * server sends nothing outside a request's own answer stream; a JSON-RPC batch (an array) is
 * answered 400, since the rate limit counts requests.
 * Refusals are JSON-RPC errors with the HTTP status of the refusal and a one-line message.
 */
export async function handleMcpRequest(request: Request, options: McpRequestOptions = {}): Promise<Response> {
  if (request.method === "GET") {
    return rpcError(405, SERVER_ERROR, "This server has no stream to open with GET; answers and progress come on each POST's own stream.", {
      Allow: "POST, DELETE",
    });
  }
  const db = options.db ?? getDb();
  let authenticated: AuthenticatedApiKey | null = null;
  try {
    authenticated = await authenticateAgentRequest(db, request, { stateChanging: true });
    const parsedBody = request.method === "POST" ? await readJsonBody(request) : undefined;
    // One request, one message: a JSON-RPC batch would be counted once against the key's rate limit
    // however many calls it carries (MCP 2025-06-18 removed batching; no current client sends one).
    if (Array.isArray(parsedBody)) {
      throw new AppError("batch_not_accepted", "Send one JSON-RPC message per request: batches are not accepted, so that every call counts against the key's rate limit.", 400);
    }
    const session = { db, authenticated, origin: publicOrigin(request), progressIntervalMs: options.progressIntervalMs };
    const sessionId = request.headers.get("mcp-session-id");
    if (request.method === "DELETE") {
      if (!sessionId) throw new AppError("session_required", "Send the Mcp-Session-Id header of the session to end.", 400);
      return (await endMcpSession(session, sessionId)) ? new Response(null, { status: 200 }) : sessionNotFound();
    }
    if (!sessionId) {
      if (!isInitializeRequest(parsedBody)) {
        return rpcError(400, SERVER_ERROR, "Bad Request: Mcp-Session-Id header is required (start a session with initialize).");
      }
      return await initializeMcpSession(session, request, parsedBody);
    }
    if (isInitializeRequest(parsedBody)) return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: Server already initialized");
    const cancelled = CancelledNotificationSchema.safeParse(parsedBody);
    if (cancelled.success && cancelled.data.params.requestId !== undefined && isUuid(sessionId)) {
      // The call may be answered by another instance: the cancellation reaches it through its row.
      const reason = cancellationReason("Cancelled by the MCP client", cancelled.data.params.reason);
      const found = await cancelMcpCall(db, {
        sessionId, tenantId: authenticated.tenant.id, apiKeyId: authenticated.apiKey.id, requestId: String(cancelled.data.params.requestId), reason,
      });
      if (found?.actionId) await withdrawCalls(db, authenticated, [found.actionId], reason);
    }
    // Closed, idle too long or started by another key: MCP's answer is 404, and the client starts anew.
    return (await continueMcpSession(session, sessionId, request, parsedBody)) ?? sessionNotFound();
  } catch (error) {
    if (authenticated) {
      const { apiKey, tenant } = authenticated;
      await auditRequestRefusal({ tenantId: tenant.id, actor: { type: "api_key", id: apiKey.id, label: apiKey.label }, surface: "mcp", operation: request.method, error });
    }
    const { status, body } = toPublicError(error, "mcp");
    const code = body.code.startsWith("invalid_payload") ? ErrorCode.ParseError : SERVER_ERROR;
    return rpcError(status, code, body.message, agentRefusalHeaders(error, status), { code: body.code });
  }
}

function sessionNotFound(): Response {
  return rpcError(404, SESSION_NOT_FOUND, "Session not found: start a new session (send initialize again).");
}

/** A JSON-RPC error answering the whole HTTP request (no request id applies). */
function rpcError(status: number, code: number, message: string, headers?: HeadersInit, data?: Record<string, unknown>): Response {
  const out = new Headers(headers);
  out.set("Cache-Control", "no-store");
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message, ...(data ? { data } : {}) } }, { status, headers: out });
}

/**
 * The origin of the console's links: the one the agent connected through when the console answers
 * there (127.0.0.1, a second configured host name), else the configured public URL (behind a proxy,
 * or a Host header the console does not answer on); the request's own only when none is configured.
 */
function publicOrigin(request: Request): string {
  const own = new URL(request.url).origin;
  const ours = publicOrigins(request.headers);
  if (ours.has(own)) return own;
  const [configured] = ours;
  return configured ?? own;
}
