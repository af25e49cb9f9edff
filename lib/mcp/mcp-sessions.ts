import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Db } from "@/lib/db/client";
import { flushWithClient } from "@/lib/db/flush-on-signals";
import { sqlTransaction } from "@/lib/db/sql";
import {
  endMcpSessionRow, lockMcpSessionUntrusted, openMcpSessionRow, setMcpSessionUntrusted, touchMcpSession,
} from "@/lib/db/statements/mcp/mcp-sessions";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { MAX_BODY_BYTES } from "@/lib/api/read-json-body";
import { keepUntrustedStrings } from "@/lib/agent/untrusted";
import { cancelAction } from "@/lib/approvals/cancel-action";
import { withClientConnection } from "@/lib/mcp/client-connection";
import { createGatewayServer, type GatewaySessionState, type RunningCall } from "@/lib/mcp/create-gateway-server";

/**
 * MCP sessions live in PostgreSQL (lib/db/statements/mcp/mcp-sessions.ts), so every console
 * instance serves every session: each request gets a fresh stateless SDK transport and server
 * (the SDK's way for several instances) over the session's row, which holds what a session
 * remembers between requests. A call in flight belongs to the instance holding its HTTP request;
 * a cancellation or a DELETE that reaches another instance reaches it through its row.
 * A session belongs to the key that started it: another key does not find it.
 */

/** A session without a request for this long, and no call in flight, is over. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions per key; the least recently used idle one makes room for a new one. */
export const MAX_MCP_SESSIONS_PER_KEY = 32;

const IDLE_SECONDS = MCP_SESSION_IDLE_MS / 1000;

export type McpSessionInput = {
  db: Db;
  authenticated: AuthenticatedApiKey;
  /** The console's public origin, for links to actions. */
  origin: string;
  progressIntervalMs?: number;
};

/**
 * Starts a session for an `initialize` request and answers it with the new `Mcp-Session-Id`.
 * Refuses (429) when the key already holds its maximum of sessions, all with calls in flight.
 */
export async function initializeMcpSession(input: McpSessionInput, request: Request, parsedBody: unknown): Promise<Response> {
  const id = randomUUID();
  const { apiKey, tenant } = input.authenticated;
  const opened = await sqlTransaction(input.db, (tx) =>
    openMcpSessionRow(tx, { id, tenantId: tenant.id, apiKeyId: apiKey.id, idleSeconds: IDLE_SECONDS, maxPerKey: MAX_MCP_SESSIONS_PER_KEY }),
  );
  if (!opened.opened) {
    throw new AppError("too_many_sessions", `This key already has ${opened.open} MCP sessions waiting on calls; end one (DELETE with its Mcp-Session-Id) or retry when a call has finished.`, 429);
  }
  const response = await serve({ ...input, sessionId: id, untrusted: [] }, request, parsedBody);
  if (!response.ok) {
    await endMcpSessionRow(input.db, { id, tenantId: tenant.id, apiKeyId: apiKey.id, reason: "The session did not start." });
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set("Mcp-Session-Id", id);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A request of session `sessionId`; null when the key has no such live session (MCP's 404). */
export async function continueMcpSession(input: McpSessionInput, sessionId: string, request: Request, parsedBody: unknown): Promise<Response | null> {
  if (!isUuid(sessionId)) return null;
  const { apiKey, tenant } = input.authenticated;
  const session = await touchMcpSession(input.db, { id: sessionId, tenantId: tenant.id, apiKeyId: apiKey.id, idleSeconds: IDLE_SECONDS });
  if (!session) return null;
  return serve({ ...input, sessionId, untrusted: session.untrusted }, request, parsedBody);
}

/**
 * Ends the key's session (the client's DELETE), wherever its calls run: each call still waiting is
 * cancelled and its action withdrawn. False when the key has no such session.
 */
export async function endMcpSession(input: Omit<McpSessionInput, "origin">, sessionId: string): Promise<boolean> {
  if (!isUuid(sessionId)) return false;
  const { apiKey, tenant } = input.authenticated;
  const reason = "The MCP client ended its session before the call was answered.";
  const ended = await endMcpSessionRow(input.db, { id: sessionId, tenantId: tenant.id, apiKeyId: apiKey.id, reason });
  await withdrawCalls(input.db, input.authenticated, ended.actionIds, reason);
  return ended.ended;
}

/** Withdraws the actions of cancelled calls as the key's (a call decided or run meanwhile stays as it is). */
export async function withdrawCalls(db: Db, authenticated: AuthenticatedApiKey, actionIds: string[], reason: string): Promise<void> {
  const { apiKey, tenant } = authenticated;
  const actor = { type: "api_key" as const, id: apiKey.id, label: apiKey.label };
  for (const actionId of actionIds) {
    try {
      await cancelAction(db, { tenantId: tenant.id, actionId, actor, apiKeyId: apiKey.id, reason });
    } catch (error) {
      // Decided, run or expired meanwhile: the refusal is audited; there is nothing left to withdraw.
      if (!(error instanceof AppError)) console.error("[countersign] withdrawing an MCP call's action failed:", error);
    }
  }
}

/** One request of a session, on a stateless transport and server of its own over the session's row. */
async function serve(input: McpSessionInput & { sessionId: string; untrusted: string[] }, request: Request, parsedBody: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: MAX_BODY_BYTES });
  const state: GatewaySessionState = {
    db: input.db,
    sessionId: input.sessionId,
    tenantId: input.authenticated.tenant.id,
    key: input.authenticated.apiKey,
    origin: input.origin,
    untrusted: input.untrusted,
    remember: (output) => rememberOutput(input.db, input.sessionId, output),
    running: runningCalls(input.db),
    endAnswer: (requestId) => transport.closeSSEStream(requestId),
    progressIntervalMs: input.progressIntervalMs,
  };
  await createGatewayServer(state).connect(transport);
  return withClientConnection(request.signal, () => transport.handleRequest(request, { parsedBody }));
}

/** Adds the strings of tool output the session handed back to what it remembers, under the row's lock (calls may run on several instances). */
async function rememberOutput(db: Db, sessionId: string, output: unknown): Promise<string[]> {
  return sqlTransaction(db, async (tx) => {
    const kept = keepUntrustedStrings((await lockMcpSessionUntrusted(tx, { id: sessionId })) ?? [], output);
    await setMcpSessionUntrusted(tx, { id: sessionId, untrusted: kept });
    return kept;
  });
}

// The calls this process is answering, per database client: on globalThis, like the client itself.
const store = globalThis as unknown as { countersignMcpCalls?: WeakMap<object, Set<RunningCall>> };

/**
 * When the console is asked to stop (or the client disconnects), the calls it is answering end
 * first, so that each withdraws its action instead of leaving it in the queue with no caller to run
 * it. The sessions stay: another instance may continue them. (A crash leaves the actions pending:
 * approving one then runs nothing, and it expires.)
 */
function runningCalls(db: Db): Set<RunningCall> {
  store.countersignMcpCalls ??= new WeakMap();
  let calls = store.countersignMcpCalls.get(db);
  if (!calls) {
    const running = new Set<RunningCall>();
    calls = running;
    store.countersignMcpCalls.set(db, running);
    flushWithClient(db, async () => {
      for (const call of running) call.stop.abort("The console stopped before the call was answered.");
      await Promise.allSettled([...running].map((call) => call.done));
    });
  }
  return calls;
}
