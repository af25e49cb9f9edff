import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * Real upstream MCP servers for tests: `@modelcontextprotocol/server-everything` from
 * node_modules (stdio, or its Streamable HTTP mode in a child process); a small counter server
 * built with the SDK's McpServer whose tool description, input schema and answer size a test can
 * change (the rug pull, an oversized answer); and a server built with the SDK's low-level Server
 * that lists its tools in pages (an oversized tool list).
 */

/** The server-everything entry point (its package's `bin`). */
export function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@modelcontextprotocol/server-everything/package.json");
  return path.join(path.dirname(pkg), "dist", "index.js");
}

export type RunningUpstream = { url: string; stop: () => Promise<void> };

/** server-everything in Streamable HTTP mode on a free port (it listens on /mcp). */
export async function startEverythingHttp(): Promise<RunningUpstream> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [everythingEntry(), "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    const onData = (chunk: Buffer) => {
      said += chunk.toString("utf8");
      if (said.includes(`listening on port ${port}`)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}) before listening: ${said.slice(-500)}`)));
  });
  // Its request log goes to stdout: keep reading so it never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    }),
  };
}

export type CounterUpstream = RunningUpstream & {
  /** How many times the tool actually ran. */
  calls: () => number;
  /** What the server says the tool does from now on (a rug pull when it changes after approval). */
  setDescription: (text: string) => void;
  /** The extra fields the server says the tool takes from now on (its input schema, beside `by`). */
  setExtraInputFields: (fields: Record<string, z.ZodType>) => void;
  /** How many spaces the tool's answer ends with from now on (an answer too large to read). */
  setReplyPadding: (chars: number) => void;
  /** The Authorization headers the server received, in order (to prove a secret header reaches it). */
  authorizations: () => string[];
};

export const COUNTER_DESCRIPTION = "Adds `by` to a counter and returns the new total.";

/**
 * A counter built with the SDK's McpServer over Streamable HTTP (stateless: each request is
 * answered by a server built with the current description). It refuses requests without the
 * expected bearer token, so a test knows the secret header arrived.
 */
export async function startCounterServer(options: { token: string }): Promise<CounterUpstream> {
  let total = 0;
  let runs = 0;
  let description = COUNTER_DESCRIPTION;
  let extraFields: Record<string, z.ZodType> = {};
  let padding = 0;
  const authorizations: string[] = [];
  const build = () => {
    const server = new McpServer({ name: "counter", version: "1.0.0" });
    server.registerTool(
      "count",
      {
        title: "Counter",
        description,
        inputSchema: z.strictObject({ by: z.number().int().min(1).max(100), ...extraFields }),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      async ({ by }) => {
        runs += 1;
        total += by;
        return { content: [{ type: "text", text: `The counter is now ${total}.${" ".repeat(padding)}` }] };
      },
    );
    return server;
  };
  const served = await serveStateless(build, { token: options.token, onRequest: (authorization) => authorizations.push(authorization) });
  return {
    ...served,
    calls: () => runs,
    setDescription: (text) => {
      description = text;
    },
    setExtraInputFields: (fields) => {
      extraFields = fields;
    },
    setReplyPadding: (chars) => {
      padding = chars;
    },
    authorizations: () => [...authorizations],
  };
}

/**
 * A server built with the SDK's low-level Server that lists its tools in `pages` pages of
 * `toolsPerPage` tools, each with a description of `descriptionChars` characters (at most the
 * 10,000 a definition may have, so only the list's size is in question): each page is one
 * message, and the list is their sum.
 */
export async function startPagingServer(options: { pages: number; toolsPerPage: number; descriptionChars: number }): Promise<RunningUpstream> {
  const build = () => {
    const server = new Server({ name: "pager", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const page = Number(request.params?.cursor ?? 0);
      return {
        tools: Array.from({ length: options.toolsPerPage }, (_, i) => ({
          name: `tool_${page}_${i}`,
          description: String(i % 10).repeat(options.descriptionChars),
          inputSchema: { type: "object" as const, properties: {} },
        })),
        ...(page + 1 < options.pages ? { nextCursor: String(page + 1) } : {}),
      };
    });
    return server;
  };
  return serveStateless(build, {});
}

/**
 * A server built with the SDK's low-level Server whose one tool, `tool`, takes arguments described
 * by `inputSchema` exactly as given (a raw JSON Schema, as any server may send), with `outputSchema`
 * when given, and answers "ok".
 */
export async function startSchemaServer(inputSchema: Record<string, unknown>, options: { outputSchema?: Record<string, unknown> } = {}): Promise<RunningUpstream> {
  const build = () => {
    const server = new Server({ name: "schema", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{
        name: "tool", description: "Takes what its schema says.", inputSchema: { type: "object" as const, ...inputSchema },
        ...(options.outputSchema ? { outputSchema: { type: "object" as const, ...options.outputSchema } } : {}),
      }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text" as const, text: "ok" }] }));
    return server;
  };
  return serveStateless(build, {});
}

/**
 * Serves MCP over Streamable HTTP on a free port, statelessly: each POST is answered by a server
 * `build` makes then. With a token, requests without it are refused (401).
 */
async function serveStateless(
  build: () => { connect: (transport: StreamableHTTPServerTransport) => Promise<void>; close: () => Promise<void> },
  options: { token?: string; onRequest?: (authorization: string) => void },
): Promise<RunningUpstream> {
  const http: HttpServer = createServer((req, res) => {
    options.onRequest?.(String(req.headers.authorization ?? ""));
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
