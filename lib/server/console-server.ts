import http from "node:http";
import next from "next";
import { API_RESPONSE_HEADERS, EVERY_RESPONSE_HEADERS } from "@/lib/server/fixed-headers.mjs";
import { createAdmission, type Admission, type Lane } from "@/lib/server/admission";
import { offeredHealthAnswer, type HealthAnswer } from "@/lib/server/health-hook";

const HEALTH_PATH = "/api/health";
/** How long a stop waits for requests in flight before closing their connections. */
const DRAIN_MS = 5_000;
/**
 * Requests started per turn (admission.ts): 8 is near the best throughput measured (2, 4, 8 and
 * unpaced: 1,010, 1,430, 1,410 and 780 req/s; health p99 12, 24, 30 and 450 ms) with room for
 * routes that do more per turn (docs/BENCHMARKS.md).
 */
const REQUESTS_PER_TURN = 8;
/** Of a turn's starts, those agents' requests keep while people's wait too (admission.ts). */
const AGENT_SHARE = 2;
/**
 * Past this many waiting in its lane, a request is answered 503 at once (a flood must not grow
 * memory without bound). People's lane is smaller: browsers send a few requests at a time.
 */
const MAX_WAITING = { agents: 2_048, people: 512 };
/** The agent API: bearer-key routes (REST and MCP). Every other path is a person's. */
const AGENT_PATHS = ["/api/v1", "/api/mcp"];

const FIXED_API_HEADERS = Object.fromEntries([...EVERY_RESPONSE_HEADERS, ...API_RESPONSE_HEADERS].map(({ key, value }) => [key, value]));

/**
 * The built console's HTTP server: /api/health answered in the turn it arrives in, from the report
 * the app offers at start (instrumentation.ts → health-hook.ts), and everything else handed to
 * Next.js unchanged through admission.ts (docs/DESIGN.md, "People and the health probe are not
 * queued behind agents").
 */
export async function startConsoleServer({ dir, port, hostname }: { dir: string; port: number; hostname?: string }): Promise<{ url: string; stop(): Promise<void> }> {
  const app = next({ dev: false, dir, hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();

  const server = http.createServer(consoleRequestListener(handle));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drained = await Promise.race([closed.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), DRAIN_MS).unref())]);
      if (!drained) server.closeAllConnections();
      await app.close();
    })());
  return { url: `http://${hostname ?? "localhost"}:${port}`, stop };
}

/**
 * /api/health from the offered report, when there is one, at once; every other request to `next`
 * through `admission`, in its lane (503 when too many wait there). A request whose client left
 * while it waited is not started.
 */
export function consoleRequestListener(
  next: (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>,
  admission: Admission = createAdmission({ perTurn: REQUESTS_PER_TURN, agentShare: AGENT_SHARE, maxWaiting: MAX_WAITING }),
): http.RequestListener {
  return (request, response) => {
    const answer = isHealthProbe(request) ? offeredHealthAnswer() : null;
    if (answer) return answerHealth(answer, request, response);
    const admitted = admission.admit(laneOf(request), () => {
      if (!request.socket.destroyed) void next(request, response);
    });
    if (!admitted) {
      const body = JSON.stringify({ error: { code: "overloaded", message: "The console has too many requests waiting; retry in a second." } });
      response.writeHead(503, { ...FIXED_API_HEADERS, "Content-Type": "application/json", "Retry-After": "1", "Content-Length": Buffer.byteLength(body) });
      response.end(body);
    }
  };
}

function pathOf(request: Pick<http.IncomingMessage, "url">): string {
  const url = request.url ?? "";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

function isHealthProbe(request: http.IncomingMessage): boolean {
  return (request.method === "GET" || request.method === "HEAD") && pathOf(request) === HEALTH_PATH;
}

/**
 * Which admission lane a request waits in: the agent API's, or people's (everything else). Only the
 * order of starts depends on it: a path spelled to land in the other lane changes no check.
 */
export function laneOf(request: Pick<http.IncomingMessage, "url">): Lane {
  const path = pathOf(request);
  return AGENT_PATHS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ? "agents" : "people";
}

function answerHealth(answer: HealthAnswer, request: http.IncomingMessage, response: http.ServerResponse): void {
  const send = (status: number, body: string) => {
    response.writeHead(status, {
      ...FIXED_API_HEADERS,
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Content-Length": Buffer.byteLength(body),
    });
    response.end(request.method === "HEAD" ? undefined : body);
  };
  answer().then(
    ({ httpStatus, report }) => send(httpStatus, JSON.stringify(report)),
    (error: unknown) => {
      console.error(`/api/health failed: ${error instanceof Error ? error.message : String(error)}`);
      send(503, JSON.stringify({ status: "down", error: "The health check failed; see the console's log." }));
    },
  );
}
