import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator, JsonSchemaValidatorResult } from "@modelcontextprotocol/sdk/validation/types.js";
import { readEnv } from "@/lib/env";
import { jsonCharsAtMost } from "@/lib/canonical/json-chars";
import { AppError } from "@/lib/errors";
import { redactSecrets } from "@/lib/mcp/upstream/secret-box";
import { assertStdioCommandAllowed } from "@/lib/mcp/upstream/server-config";
import { DestinationRefused, guardedFetch } from "@/lib/mcp/upstream/upstream-destination";

/** How to reach one upstream server, with its secrets opened (never leaves the server side). */
export type UpstreamEndpoint = {
  serverName: string;
  transport: "http" | "stdio";
  url: string | null;
  command: string | null;
  args: string[];
  /** stdio: environment variables; http: request headers. */
  secrets: Record<string, string>;
};

/** A listing longer than this is refused rather than stored (a server listing without end). */
export const MAX_LISTED_TOOLS = 500;
const MAX_PAGES = 50;
const STDERR_TAIL_CHARS = 1_000;

export function upstreamTimeoutMs(): number {
  return readEnv("MCP_UPSTREAM_TIMEOUT_MS") ?? 60_000;
}

/** The most a server may send in one message, and in its whole tool list (MCP_UPSTREAM_MAX_BYTES). */
export function upstreamMaxBytes(): number {
  return readEnv("MCP_UPSTREAM_MAX_BYTES") ?? 2 * 1024 * 1024;
}

/**
 * A server sent more than the console reads from one (upstreamMaxBytes). Not an AppError: after a
 * forwarded call was sent it means the answer could not be read, so the outcome is unknown.
 */
export class UpstreamTooLarge extends Error {}

function tooLarge(serverName: string, limit: number, what: string): UpstreamTooLarge {
  return new UpstreamTooLarge(
    `MCP server ${serverName} sent ${what} over ${limit} bytes, more than Countersign reads from a server (MCP_UPSTREAM_MAX_BYTES).`,
  );
}

/**
 * fetch for the SDK's HTTP transport that reads at most `limit` bytes of each response body: past
 * it the body errors and `exceeded` is told, so a server cannot make the console parse (on its
 * one thread) a message of any size it likes.
 */
function boundedFetch(fetchOnce: typeof fetch, limit: number, exceeded: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetchOnce(input, init);
    if (!response.body) return response;
    let read = 0;
    const counted = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit) {
          exceeded();
          controller.error(new Error(`The response passed ${limit} bytes.`));
          return;
        }
        controller.enqueue(chunk);
      },
    }));
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

const CLIENT_INFO = { name: "countersign", version: "1.0.0" };

/** The destination rule's refusal behind an error the SDK wrapped it in, if it is one. */
function destinationRefusal(error: unknown): DestinationRefused | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DestinationRefused) return e;
  }
  return null;
}

/** A message from an upstream failure, safe to show: secrets replaced, one line, bounded. */
export function upstreamMessage(error: unknown, endpoint: Pick<UpstreamEndpoint, "secrets">): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactSecrets(text, endpoint.secrets).replace(/\s+/g, " ").trim().slice(0, 500);
}

/**
 * The SDK's client compiles a validator for every listed tool's outputSchema on each listTools, on
 * this thread, for its callTool to check structured results with: hundreds of tools cost a listing
 * (which precedes every forwarded call) hundreds of milliseconds, and one schema its default Ajv
 * cannot compile failed the whole listing. Countersign never calls callTool (a forwarded call is a
 * plain tools/call request, deliver-upstream-call.ts): nothing is compiled, and nothing is checked.
 */
const NO_OUTPUT_VALIDATORS: jsonSchemaValidator = {
  getValidator: <T>() => (input: unknown): JsonSchemaValidatorResult<T> => ({ valid: true, data: input as T, errorMessage: undefined }),
};

/**
 * Connects to the server with the SDK's own client (Streamable HTTP to an address the destination
 * rule allows, upstream-destination.ts; or a stdio command the operator allows, started with a
 * minimal environment plus the server's secrets), runs `run`, and closes the connection — a stdio
 * server's process ends with it. A failure to connect is an AppError that says why; what `run`
 * throws is passed on as it is.
 */
export async function withUpstream<T>(
  endpoint: UpstreamEndpoint,
  run: (client: Client, signal: AbortSignal) => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: NO_OUTPUT_VALIDATORS });
  // Every request of this connection takes `signal`: a message past the limit fails the request
  // waiting for it at once, with why (not after the timeout, not as a bare "connection closed").
  const limit = upstreamMaxBytes();
  const overLimit = new AbortController();
  const exceeded = () => overLimit.abort(tooLarge(endpoint.serverName, limit, "a message"));
  const signal = options.signal ? AbortSignal.any([options.signal, overLimit.signal]) : overLimit.signal;
  let stderrTail = "";
  let transport: StreamableHTTPClientTransport | StdioClientTransport;
  let closeHttp = async () => {};
  if (endpoint.transport === "http") {
    if (!endpoint.url) throw new Error(`MCP server ${endpoint.serverName} has no URL.`);
    const guarded = guardedFetch();
    closeHttp = guarded.close;
    transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      fetch: boundedFetch(guarded.fetch, limit, exceeded),
      requestInit: { headers: endpoint.secrets },
      // A dropped stream is not reopened: a call's outcome is then unknown, and a person decides.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
    });
  } else {
    if (!endpoint.command) throw new Error(`MCP server ${endpoint.serverName} has no command.`);
    // Checked again at every start: the operator may have taken the command off the list since.
    assertStdioCommandAllowed(endpoint.command);
    const stdio = new StdioClientTransport({
      command: endpoint.command,
      args: endpoint.args,
      env: { ...getDefaultEnvironment(), ...endpoint.secrets },
      // Read here (never passed to the console's own output, where a secret could land in its logs).
      stderr: "pipe",
      // The SDK drops the connection past this many unread bytes, saying so to client.onerror.
      maxBufferSize: limit,
    });
    client.onerror = (error) => {
      if (error.message.startsWith("ReadBuffer exceeded maximum size")) exceeded();
    };
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    transport = stdio;
  }
  try {
    await client.connect(transport, { timeout: upstreamTimeoutMs(), signal });
  } catch (error) {
    await client.close().catch(() => {});
    await closeHttp().catch(() => {});
    const refused = destinationRefusal(error);
    if (refused) throw new AppError("mcp_destination_refused", `Countersign does not connect to MCP server ${endpoint.serverName}: ${refused.message}`, 502);
    const said = stderrTail.trim() ? ` (it wrote: ${upstreamMessage(stderrTail.trim().split("\n").slice(-3).join(" "), endpoint)})` : "";
    throw new AppError("upstream_unreachable", `Could not connect to MCP server ${endpoint.serverName}: ${upstreamMessage(error, endpoint)}${said}`, 502);
  }
  try {
    return await run(client, signal);
  } finally {
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
    await closeHttp().catch(() => {});
  }
}

/**
 * Every tool the server lists (all pages), or an AppError that says why not. The whole list is at
 * most upstreamMaxBytes of JSON, whatever the pages: what is done with it next (each definition
 * checked and hashed) grows with it.
 */
export async function listUpstreamTools(client: Client, endpoint: UpstreamEndpoint, options: { signal: AbortSignal }): Promise<Tool[]> {
  const tools: Tool[] = [];
  const limit = upstreamMaxBytes();
  let chars = 0;
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout: upstreamTimeoutMs(), signal: options.signal });
      tools.push(...listed.tools);
      if (tools.length > MAX_LISTED_TOOLS) {
        throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} lists more than ${MAX_LISTED_TOOLS} tools; Countersign pins at most that many per server.`, 502);
      }
      chars += jsonCharsAtMost(listed.tools, limit - chars);
      if (chars > limit) throw tooLarge(endpoint.serverName, limit, "a tool list");
      cursor = listed.nextCursor;
      if (!cursor) return tools;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The SDK fails a request whose signal aborted with its own error, not the signal's reason.
    const cause = error instanceof UpstreamTooLarge ? error : options.signal.reason;
    if (cause instanceof UpstreamTooLarge) throw new AppError("upstream_too_large", cause.message, 502);
    throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} did not list its tools: ${upstreamMessage(error, endpoint)}`, 502);
  }
  throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} kept paging its tool list past ${MAX_PAGES} pages.`, 502);
}
