import { afterAll, beforeAll, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectMcpClient, textOfResult } from "@/tests/mcp-gateway-client";
import { startCounterServer, type CounterUpstream } from "@/tests/mcp-upstreams";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { unwrapUntrustedToolOutput } from "@/lib/agent/untrusted";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { decideAction } from "@/lib/approvals/decide-action";
import { approveMcpTool } from "@/lib/mcp/upstream/approve-mcp-tool";
import { listMcpServers } from "@/lib/mcp/upstream/list-mcp-servers";
import { registerMcpServer } from "@/lib/mcp/upstream/register-mcp-server";

const t = setUpTestDatabase({ appClient: true });
const a = setUpTestTenant(t);
let counter: CounterUpstream;
const TOKEN = "tok-gateway-3e9a1c7b5d2f4a6c8e0b";
/** How long a poll for something the server does in the background may take on a loaded machine (not a speed assertion). */
const EVENTUALLY = { timeout: 30_000 };

beforeAll(async () => {
  counter = await startCounterServer({ token: TOKEN });
  const admin = a.users.admin.member;
  await registerMcpServer(t.db, {
    tenantId: a.id, admin, server: { name: "counter", transport: "http", url: counter.url, secrets: [{ name: "Authorization", value: `Bearer ${TOKEN}` }] },
  });
  const tool = (await listMcpServers(t.db, a.id))[0].tools.find((x) => x.name === "count")!;
  await approveMcpTool(t.db, { tenantId: a.id, admin, toolId: tool.id, definitionHash: tool.pendingHash! });
});
afterAll(async () => {
  await counter?.stop();
});

it("an agent calls an upstream server's tool through Countersign's MCP endpoint: it waits for a reviewer, and is forwarded once", async () => {
  const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name: "mcp-upstream", allowedTools: ["counter__count"], createdById: a.users.admin.id });
  const { client } = await connectMcpClient(secret);

  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(["counter__count"]);
  // The pinned schema, as the upstream server wrote it.
  expect(tools[0].inputSchema).toMatchObject({ type: "object", properties: { by: { type: "integer", minimum: 1, maximum: 100 } } });

  let answered = false;
  const call = client.callTool({ name: "counter__count", arguments: { by: 7 } }).finally(() => (answered = true));
  await expect.poll(() => t.db.action.count({ where: { requesterApiKeyId: apiKey.id, status: "pending" } }), EVENTUALLY).toBe(1);
  const action = await t.db.action.findFirstOrThrow({ where: { requesterApiKeyId: apiKey.id } });
  expect(action.tool).toBe("counter__count");
  expect(counter.calls()).toBe(0);
  expect(answered).toBe(false);

  await decideAction(t.db, { tenantId: a.id, actionId: action.id, reviewer: a.users.reviewer.member, verdict: "approve", payloadHash: action.payloadHash });
  const result = (await call) as CallToolResult;
  expect(result.isError).toBeFalsy();
  // The upstream's output reaches the model as untrusted data, never as instructions.
  const unwrapped = unwrapUntrustedToolOutput(textOfResult(result));
  expect(unwrapped?.tool).toBe("counter__count");
  expect(unwrapped?.content).toContain("The counter is now 7.");
  expect(counter.calls()).toBe(1);
  expect(await t.db.execution.count({ where: { actionId: action.id } })).toBe(1);

  // A call the key is not scoped to is refused before anything is proposed.
  await expect(client.callTool({ name: "counter__missing", arguments: {} })).rejects.toThrow(/may not propose/);
  expect(counter.calls()).toBe(1);
  await client.close();
});
