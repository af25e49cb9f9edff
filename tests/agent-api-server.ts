// The agent API's real route handlers (/api/v1) behind a plain HTTP server on loopback, so a client
// in another process (the Python client) or in this one (the TypeScript client, with its own fetch)
// talks HTTP to them; every request is recorded with when it arrived. The handlers use the app's
// database client (DATABASE_URL).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { POST as submitAction } from "@/app/api/v1/actions/route";
import { GET as getAction } from "@/app/api/v1/actions/[id]/route";
import { POST as cancelAction } from "@/app/api/v1/actions/[id]/cancel/route";
import { GET as waitForDecision } from "@/app/api/v1/actions/[id]/decision/route";
import { POST as executeAction } from "@/app/api/v1/actions/[id]/execute/route";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: Array<{ method: string; path: RegExp; handler: Handler }> = [
  { method: "POST", path: /^\/api\/v1\/actions$/, handler: submitAction },
  { method: "GET", path: /^\/api\/v1\/actions\/(?<id>[^/]+)$/, handler: getAction },
  { method: "GET", path: /^\/api\/v1\/actions\/(?<id>[^/]+)\/decision$/, handler: waitForDecision },
  { method: "POST", path: /^\/api\/v1\/actions\/(?<id>[^/]+)\/cancel$/, handler: cancelAction },
  { method: "POST", path: /^\/api\/v1\/actions\/(?<id>[^/]+)\/execute$/, handler: executeAction },
];

export type RecordedRequest = { method: string; path: string; search: string; status: number; startedAt: number };

export type AgentApiServer = { url: string; requests: RecordedRequest[]; close(): Promise<void> };

export async function startAgentApiServer(): Promise<AgentApiServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const startedAt = Date.now();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = ROUTES.find((r) => r.method === req.method && r.path.test(url.pathname));
    const record: RecordedRequest = { method: req.method ?? "GET", path: url.pathname, search: url.search, status: 0, startedAt };
    requests.push(record);
    void answer(req, res, url, route).then((status) => (record.status = status));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse, url: URL, route: (typeof ROUTES)[number] | undefined): Promise<number> {
  if (!route) {
    res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { code: "not_found", message: "No such route." } }));
    return 404;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  // The long-poll stops when its client goes away, as behind the console's own server.
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const request = new Request(new URL(url.pathname + url.search, `http://${req.headers.host ?? "127.0.0.1"}`), {
    method: req.method,
    headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    signal: gone.signal,
  });
  const params = route.path.exec(url.pathname)?.groups ?? {};
  const response = await route.handler(request, { params: Promise.resolve({ ...params }) });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) Readable.fromWeb(response.body as NodeReadableStream).pipe(res);
  else res.end();
  return response.status;
}
