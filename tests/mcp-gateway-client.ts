// The real MCP SDK client against Countersign's /api/mcp route handlers, called in-process: the
// client's fetch is answered by the handlers themselves, so no server sits in between.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DELETE, GET, POST } from "@/app/api/mcp/route";

export type McpHandler = (request: Request) => Promise<Response>;
const ROUTE: Record<string, McpHandler> = { POST, DELETE, GET };

export const MCP_ENDPOINT = new URL("http://console.test/api/mcp");

/** The SDK client's fetch, answered by the route handler (or `handler`). */
export function routeFetch(handler?: McpHandler) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    return (handler ?? ROUTE[request.method])(request);
  };
}

/** A connected SDK client authenticated with the API key `secret` (at `endpoint`, the URL the agent was given). */
export async function connectMcpClient(secret: string, handler?: McpHandler, endpoint: URL = MCP_ENDPOINT) {
  const client = new Client({ name: "countersign-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(endpoint, {
    fetch: routeFetch(handler),
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

export const textOfResult = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
