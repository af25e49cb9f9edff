import http from "node:http";
import next from "next";
import { API_RESPONSE_HEADERS, EVERY_RESPONSE_HEADERS } from "@/lib/server/fixed-headers.mjs";
import { createAdmission, type Admission, type Lane } from "@/lib/server/admission";
import { offeredHealthAnswer, type HealthAnswer } from "@/lib/server/health-hook";

const HEALTH_PATH = "/api/health";
/** How long a stop waits for requests in flight before closing their connections. */
const DRAIN_MS = 5_000;
/**
 * Requests started per turn of the event loop (admission.ts). In one run of 64 agents on the
 * trivial route: 2 → 1,010 req/s, 4 → 1,430, 8 → 1,410, unpaced → 780; health p99 12, 24, 30 and
 * 450 ms. 8 leaves room for routes that do more per turn.
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
 * The built console's HTTP server: Next.js's request handler, with /api/health answered first.
 *
 * Under load a probe waited behind the requests in flight (2.3 s at p99 under 64 agents' requests
 * for a static route), and a load balancer reads that as the console being down. The wait was the
 * event loop: Next.js ran every request that arrived together back to back before anything else
 * was looked at. So every request but the probe goes to Next.js unchanged, a few per turn of the
 * event loop (admission.ts), and the probe is answered in the turn its request arrives in, from the
 * health report the app offers at start-up (instrumentation.ts → health-hook.ts): the same report,
 * headers and status the route gives. Answering the probe first was not enough by itself
 * (docs/BENCHMARKS.md).
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
