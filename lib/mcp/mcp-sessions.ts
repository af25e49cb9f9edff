import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Db } from "@/lib/db/client";
import { flushWithClient } from "@/lib/db/flush-on-signals";
import { AppError } from "@/lib/errors";
import type { AuthenticatedApiKey } from "@/lib/api-keys/api-key-summary";
import { MAX_BODY_BYTES } from "@/lib/api/read-json-body";
import { withClientConnection } from "@/lib/mcp/client-connection";
import { createGatewayServer, type GatewaySessionState } from "@/lib/mcp/create-gateway-server";

/**
 * MCP sessions live in this process's memory: a session is the SDK's transport and server for one
 * client, holding the calls it is waiting on (a cancellation arrives as a separate request and
 * must reach the call it cancels). Another console instance does not know the session and answers
 * 404, and the client starts a new one (MCP's rule) — so several instances need sessions routed
 * to the instance that started them (sticky by the `Mcp-Session-Id` header), or a client that
 * re-initialises on 404. A session belongs to the key that started it; a request with another key
 * does not find it.
 */
export type McpSession = {
  readonly keyId: string;
  readonly state: GatewaySessionState;
  lastSeenAt: number;
  /** The session id, once the client's `initialize` was answered. */
  id(): string | undefined;
  /** Handles one HTTP request of this session (its body already read and strictly parsed). */
  handle(request: Request, parsedBody: unknown): Promise<Response>;
  /** Ends the session; calls still waiting are cancelled, with `reason` when the console (not the client) ends it. */
  close(reason?: string): Promise<void>;
};

/** A session without a request for this long, and no call in flight, is closed. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions per key; the least recently used idle one makes room for a new one. */
export const MAX_MCP_SESSIONS_PER_KEY = 32;
/** Open sessions per process. */
const MAX_MCP_SESSIONS = 10_000;

// On globalThis, like the database client: one table per process whatever the bundler duplicates.
const store = globalThis as unknown as { countersignMcpSessions?: Map<string, McpSession> };
function sessions(): Map<string, McpSession> {
  store.countersignMcpSessions ??= new Map();
  return store.countersignMcpSessions;
}

export type OpenSessionInput = {
  db: Db;
  authenticated: AuthenticatedApiKey;
  /** The console's public origin, for links to actions. */
  origin: string;
  progressIntervalMs?: number;
};

/**
 * A new session for a request without a session id. It enters the table when the SDK answers the
 * client's `initialize`; a request that was not one leaves it out (the caller closes it).
 * Refuses (429) when the key already holds its maximum of sessions with calls in flight.
 */
export async function openMcpSession(input: OpenSessionInput): Promise<McpSession> {
  closeWithClient(input.db);
  makeRoom(input.authenticated.apiKey.id);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions().set(id, session);
    },
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const state: GatewaySessionState = {
    db: input.db,
    tenantId: input.authenticated.tenant.id,
    key: input.authenticated.apiKey,
    origin: input.origin,
    untrusted: [],
    calls: new Set(),
    endAnswer: (requestId) => transport.closeSSEStream(requestId),
    progressIntervalMs: input.progressIntervalMs,
  };
  let server: McpServer | null = null;
  const session: McpSession = {
    keyId: input.authenticated.apiKey.id,
    state,
    lastSeenAt: Date.now(),
    id: () => transport.sessionId,
    handle: (request, parsedBody) => {
      session.lastSeenAt = Date.now();
      return withClientConnection(request.signal, () => transport.handleRequest(request, { parsedBody }));
    },
    close: async (reason) => {
      state.closedBecause = reason;
      const id = transport.sessionId;
      if (id && sessions().get(id) === session) sessions().delete(id);
      // Closing aborts the calls still waiting: each withdraws its action before it ends.
      await (server ?? transport).close();
      await Promise.allSettled([...state.calls]);
    },
  };
  // A DELETE from the client closes the transport; the table forgets the session with it.
  transport.onclose = () => {
    const id = transport.sessionId;
    if (id && sessions().get(id) === session) sessions().delete(id);
  };
  server = createGatewayServer(state);
  await server.connect(transport);
  return session;
}

// The database clients whose stop closes every session first (once per client).
const closingWith = new WeakSet<object>();

/**
 * When the console is asked to stop (or the client disconnects), every session is closed first,
 * so the calls still waiting withdraw their actions instead of leaving them in the queue with no
 * caller to run them. (A crash leaves them pending: approving one then runs nothing, and it expires.)
 */
function closeWithClient(db: Db): void {
  if (closingWith.has(db)) return;
  closingWith.add(db);
  flushWithClient(db, async () => {
    await Promise.allSettled([...sessions().values()].map((session) => session.close("The console stopped before the call was answered.")));
  });
}

/** The session with this id, if it is this key's. */
export function findMcpSession(id: string, keyId: string): McpSession | null {
  const session = sessions().get(id);
  return session && session.keyId === keyId ? session : null;
}

/** Closes idle sessions, and the key's least recently used idle one when it is at its maximum. */
function makeRoom(keyId: string): void {
  const now = Date.now();
  const idle = (s: McpSession) => s.state.calls.size === 0;
  for (const session of sessions().values()) {
    if (idle(session) && now - session.lastSeenAt > MCP_SESSION_IDLE_MS) void session.close();
  }
  const overflow = (open: McpSession[], max: number, whose: string) => {
    if (open.length < max) return;
    const lru = open.filter(idle).sort((a, b) => a.lastSeenAt - b.lastSeenAt)[0];
    if (!lru) {
      throw new AppError("too_many_sessions", `${whose} ${open.length} MCP sessions waiting on calls; end one (DELETE with its Mcp-Session-Id) or retry when a call has finished.`, 429);
    }
    void lru.close();
  };
  overflow([...sessions().values()].filter((s) => s.keyId === keyId), MAX_MCP_SESSIONS_PER_KEY, "This key already has");
  overflow([...sessions().values()], MAX_MCP_SESSIONS, "This console already has");
}
