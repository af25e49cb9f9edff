import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { getDb } from "@/lib/db/client";
import { AppError, toPublicError } from "@/lib/errors";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { auditRequestRefusal } from "@/lib/audit/audit-request-refusal";
import { agentRefusalHeaders, authenticateAgentRequest } from "@/lib/api/agent-request";
import { readJsonBody } from "@/lib/api/read-json-body";
import { findMcpSession, openMcpSession } from "@/lib/mcp/mcp-sessions";
import { publicOrigins } from "@/lib/net/request-origin";

/** JSON-RPC's implementation-defined server error (MCP's transport uses it for HTTP-level refusals too). */
const SERVER_ERROR = -32000;
/** What MCP's transport answers for an unknown session. */
const SESSION_NOT_FOUND = -32001;

export type McpRequestOptions = {
  /** How often a waiting call reports progress (tests shorten it). */
  progressIntervalMs?: number;
};

/**
 * `/api/mcp`: Countersign as a Streamable HTTP MCP server. Every request passes the agent
 * boundary the HTTP API uses (lib/api/agent-request.ts: same-origin, bearer key, rate limit,
 * audited key refusals); a POST body is read with the API's size cap and parsed as strictly;
 * then the request goes to its session (mcp-sessions.ts), or — without a session id — starts
 * one. GET is answered 405: the server sends nothing outside a request's own answer stream; a
 * JSON-RPC batch (an array) is answered 400, since the rate limit counts requests.
 * Refusals are JSON-RPC errors with the HTTP status of the refusal and a one-line message.
 */
export async function handleMcpRequest(request: Request, options: McpRequestOptions = {}): Promise<Response> {
  if (request.method === "GET") {
    return rpcError(405, SERVER_ERROR, "This server has no stream to open with GET; answers and progress come on each POST's own stream.", {
      Allow: "POST, DELETE",
    });
  }
  const db = getDb();
  let authenticated: AuthenticatedApiKey | null = null;
  try {
    authenticated = await authenticateAgentRequest(db, request, { stateChanging: true });
    const parsedBody = request.method === "POST" ? await readJsonBody(request) : undefined;
    // One request, one message: a JSON-RPC batch would be counted once against the key's rate limit
    // however many calls it carries (MCP 2025-06-18 removed batching; no current client sends one).
    if (Array.isArray(parsedBody)) {
      throw new AppError("batch_not_accepted", "Send one JSON-RPC message per request: batches are not accepted, so that every call counts against the key's rate limit.", 400);
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = findMcpSession(sessionId, authenticated.apiKey.id);
      // Closed, idle too long, started on another instance or by another key: MCP's answer is 404, and the client starts anew.
      if (!session) return rpcError(404, SESSION_NOT_FOUND, "Session not found: start a new session (send initialize again).");
      return await session.handle(request, parsedBody);
    }
    if (request.method !== "POST") throw new AppError("session_required", "Send the Mcp-Session-Id header of the session to end.", 400);
    const session = await openMcpSession({ db, authenticated, origin: publicOrigin(request), progressIntervalMs: options.progressIntervalMs });
    const response = await session.handle(request, parsedBody);
    // Not an initialize request: the SDK refused it, and there is no session to keep.
    if (!session.id()) await session.close();
    return response;
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
