import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleRequestListener, laneOf } from "@/lib/server/console-server";
import type { Admission, Lane } from "@/lib/server/admission";
import { offerHealthAnswer } from "@/lib/server/health-hook";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A console server whose Next.js never answers: every request it is handed waits forever. */
async function serverWithStuckNext(admission?: Admission) {
  const handed: string[] = [];
  const server = http.createServer(
    consoleRequestListener(async (request) => {
      handed.push(`${request.method} ${request.url}`);
      await new Promise(() => {});
    }, admission),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handed };
}

const stuck = (url: string, init?: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(1_000) });

describe("the console's server", () => {
  it("answers /api/health from the offered report, with the API's headers, while Next.js answers nothing", async () => {
    offerHealthAnswer(async () => ({ httpStatus: 200, report: { status: "ok", probe: 1 } }));
    const { base, handed } = await serverWithStuckNext();
    // Next.js is busy for good: a page waits …
    await expect(stuck(`${base}/queue`)).rejects.toThrow();
    // … and the probe is answered anyway, query string or not.
    for (const path of ["/api/health", "/api/health?from=lb"]) {
      const response = await stuck(`${base}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "ok", probe: 1 });
      expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    const head = await stuck(`${base}/api/health`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(handed).toEqual(["GET /queue"]);
  });

  it("reports a database that is down as 503, and a failing report as down without its error", async () => {
    const { base } = await serverWithStuckNext();
    offerHealthAnswer(async () => ({ httpStatus: 503, report: { status: "down" } }));
    expect((await stuck(`${base}/api/health`)).status).toBe(503);
    offerHealthAnswer(async () => {
      throw new Error("password authentication failed for user countersign_app");
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const failed = await stuck(`${base}/api/health`);
    // The operator's log says why; the probe's answer does not.
    expect(logged).toHaveBeenCalledWith("/api/health failed: password authentication failed for user countersign_app");
    logged.mockRestore();
    expect(failed.status).toBe(503);
    const body = await failed.text();
    expect(JSON.parse(body)).toMatchObject({ status: "down" });
    expect(body).not.toContain("password");
  });

  it("hands everything else to Next.js: other methods, other paths, look-alikes", async () => {
    offerHealthAnswer(async () => ({ httpStatus: 200, report: { status: "ok" } }));
    const { base, handed } = await serverWithStuckNext();
    for (const [method, path] of [["POST", "/api/health"], ["GET", "/api/health/"], ["GET", "/api/healthz"], ["GET", "/api/v1/openapi.json"]] as const) {
      await expect(stuck(`${base}${path}`, { method })).rejects.toThrow();
    }
    expect(handed).toEqual(["POST /api/health", "GET /api/health/", "GET /api/healthz", "GET /api/v1/openapi.json"]);
  });

  it("answers 503 with Retry-After, handing nothing to Next.js, when too many requests already wait", async () => {
    offerHealthAnswer(async () => ({ httpStatus: 200, report: { status: "ok" } }));
    const full: Admission = { admit: () => false, waiting: 2_048 };
    const { base, handed } = await serverWithStuckNext(full);
    const refused = await stuck(`${base}/api/v1/actions`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await refused.json()).toEqual({ error: { code: "overloaded", message: "The console has too many requests waiting; retry in a second." } });
    // The probe does not queue: it is answered however full the queue is.
    expect((await stuck(`${base}/api/health`)).status).toBe(200);
    expect(handed).toEqual([]);
  });

  it("queues the agent API in agents' lane and everything else in people's: an agent flood's 503s leave pages alone", async () => {
    offerHealthAnswer(async () => ({ httpStatus: 200, report: { status: "ok" } }));
    const lanes: string[] = [];
    // Agents' lane full, people's not.
    const agentsFull: Admission = {
      admit: (lane: Lane, start: () => void) => {
        lanes.push(lane);
        if (lane === "agents") return false;
        start();
        return true;
      },
      waiting: 2_048,
    };
    const { base, handed } = await serverWithStuckNext(agentsFull);
    expect((await stuck(`${base}/api/v1/actions`, { method: "POST", body: "{}" })).status).toBe(503);
    expect((await stuck(`${base}/api/mcp`, { method: "POST", body: "{}" })).status).toBe(503);
    for (const path of ["/queue", "/api/auth/session", "/api/actions/x/execute"]) await expect(stuck(`${base}${path}`)).rejects.toThrow();
    expect(lanes).toEqual(["agents", "agents", "people", "people", "people"]);
    expect(handed).toEqual(["GET /queue", "GET /api/auth/session", "GET /api/actions/x/execute"]);
  });
});

describe("laneOf", () => {
  it("puts the REST and MCP agent APIs, with or without a query, in agents' lane; look-alikes in people's", () => {
    for (const url of ["/api/v1", "/api/v1/actions", "/api/v1/actions/a1/decision?wait=30", "/api/mcp", "/api/mcp?session=1"]) {
      expect(laneOf({ url })).toBe("agents");
    }
    for (const url of ["/", "/queue", "/api/v1x", "/api/mcpx", "/api/actions/a1/execute", "/_next/static/chunk.js", "/api/auth/callback/credentials", "/api/health"]) {
      expect(laneOf({ url })).toBe("people");
    }
  });
});
