import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { readEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { redactSecrets } from "@/lib/mcp/upstream/secret-box";
import { assertStdioCommandAllowed } from "@/lib/mcp/upstream/server-config";

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

const CLIENT_INFO = { name: "countersign", version: "1.0.0" };

/** A message from an upstream failure, safe to show: secrets replaced, one line, bounded. */
export function upstreamMessage(error: unknown, endpoint: Pick<UpstreamEndpoint, "secrets">): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactSecrets(text, endpoint.secrets).replace(/\s+/g, " ").trim().slice(0, 500);
}

/**
 * Connects to the server with the SDK's own client (Streamable HTTP, or a stdio command the
 * operator allows, started with a minimal environment plus the server's secrets), runs `run`,
 * and closes the connection — a stdio server's process ends with it. A failure to connect is an
 * AppError that says why; what `run` throws is passed on as it is.
 */
export async function withUpstream<T>(endpoint: UpstreamEndpoint, run: (client: Client) => Promise<T>, options: { signal?: AbortSignal } = {}): Promise<T> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let stderrTail = "";
  let transport: StreamableHTTPClientTransport | StdioClientTransport;
  if (endpoint.transport === "http") {
    if (!endpoint.url) throw new Error(`MCP server ${endpoint.serverName} has no URL.`);
    transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
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
    });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    transport = stdio;
  }
  try {
    await client.connect(transport, { timeout: upstreamTimeoutMs(), signal: options.signal });
  } catch (error) {
    await client.close().catch(() => {});
    const said = stderrTail.trim() ? ` (it wrote: ${upstreamMessage(stderrTail.trim().split("\n").slice(-3).join(" "), endpoint)})` : "";
    throw new AppError("upstream_unreachable", `Could not connect to MCP server ${endpoint.serverName}: ${upstreamMessage(error, endpoint)}${said}`, 502);
  }
  try {
    return await run(client);
  } finally {
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}

/** Every tool the server lists (all pages), or an AppError that says why not. */
export async function listUpstreamTools(client: Client, endpoint: UpstreamEndpoint, options: { signal?: AbortSignal } = {}): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout: upstreamTimeoutMs(), signal: options.signal });
      tools.push(...listed.tools);
      if (tools.length > MAX_LISTED_TOOLS) {
        throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} lists more than ${MAX_LISTED_TOOLS} tools; Countersign pins at most that many per server.`, 502);
      }
      cursor = listed.nextCursor;
      if (!cursor) return tools;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} did not list its tools: ${upstreamMessage(error, endpoint)}`, 502);
  }
  throw new AppError("upstream_list_failed", `MCP server ${endpoint.serverName} kept paging its tool list past ${MAX_PAGES} pages.`, 502);
}
