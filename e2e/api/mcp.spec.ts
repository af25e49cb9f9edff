import { expect, test, type Page } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { seedAgent, type Agent } from "@/e2e/api/agent-fixtures";
import { E2E_PORT } from "@/e2e/support/config";
import { e2eDb } from "@/e2e/support/runtime";
import { signInAs } from "@/e2e/review/fixtures";

const SMALL_REFUND = { invoice_number: "INV-1043", amount_minor: 45_000, reason: "Customer returned the goods" };

/** The real MCP SDK client over HTTP against the running console. */
async function mcpClient(agent: Agent) {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${E2E_PORT}/api/mcp`), {
    requestInit: { headers: agent.headers },
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/** Calls a tool that must wait for review; resolves once the first progress notification names its action. */
async function pendingCall(client: Client, name: string, args: Record<string, unknown>) {
  let named: (actionId: string) => void = () => {};
  const actionId = new Promise<string>((resolve) => (named = resolve));
  const state = { settled: false };
  const result = client.callTool({ name, arguments: args }, undefined, {
    resetTimeoutOnProgress: true,
    onprogress: (progress: Progress) => {
      const id = /\/actions\/([0-9a-f-]{36})/.exec(progress.message ?? "")?.[1];
      if (id) named(id);
    },
  }) as Promise<CallToolResult>;
  result.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return { actionId: await actionId, result, state };
}

async function decideInBrowser(page: Page, agent: Agent, actionId: string, verdict: "Approve" | "Reject", note?: string) {
  await signInAs(page, agent.tenant.users.reviewer.email);
  await page.goto(`/actions/${actionId}`);
  await expect(page.getByRole("button", { name: verdict, exact: true })).toBeVisible();
  if (note) await page.getByLabel("Note or reason").fill(note);
  await page.getByRole("button", { name: verdict, exact: true }).click();
  // Approve asks for a confirmation (as the queue does); Reject sends the form.
  if (verdict === "Approve") await page.getByRole("dialog", { name: "Approve this action?" }).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: verdict === "Approve" ? "Approved (1 of 1)" : "Rejected" })).toBeVisible();
}

test.describe("Countersign as an MCP server", () => {
  test("the SDK client lists the key's tools, an allowed read returns at once, and a pending call returns only after a reviewer approves in the browser, once", async ({ page }) => {
    const agent = await seedAgent(["get_invoice", "refund_invoice"]);
    const client = await mcpClient(agent);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["get_invoice", "refund_invoice"]);

    const read = (await client.callTool({ name: "get_invoice", arguments: { invoice_number: "INV-1042" } })) as CallToolResult;
    expect(read.isError).toBe(false);
    expect(textOf(read)).toMatch(/^<untrusted-tool-output tool="get_invoice">\n[\s\S]*"invoice_number": "INV-1042"/);

    const call = await pendingCall(client, "refund_invoice", SMALL_REFUND);
    const row = await e2eDb().action.findUniqueOrThrow({ where: { id: call.actionId } });
    expect(row).toMatchObject({ status: "pending", requesterApiKeyId: agent.keyId });
    expect(call.state.settled).toBe(false);

    await decideInBrowser(page, agent, call.actionId, "Approve");
    const result = await call.result;
    expect(result.isError, textOf(result)).toBe(false);
    expect(textOf(result)).toMatch(/"invoice_number": "INV-1043"/);
    expect(result._meta?.["countersign/action"]).toMatchObject({ id: call.actionId, state: "succeeded" });
    expect(await e2eDb().refund.count({ where: { actionId: call.actionId } })).toBe(1);
    expect(await e2eDb().execution.count({ where: { actionId: call.actionId } })).toBe(1);
    await client.close();
  });

  test("a rejection in the browser returns the reviewer's reason to the model", async ({ page }) => {
    const agent = await seedAgent(["refund_invoice"]);
    const client = await mcpClient(agent);
    const call = await pendingCall(client, "refund_invoice", SMALL_REFUND);
    await decideInBrowser(page, agent, call.actionId, "Reject", "Refund 400.00 only: the restocking fee stays");
    const result = await call.result;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("The reviewer's reason: Refund 400.00 only: the restocking fee stays");
    expect(await e2eDb().refund.count({ where: { actionId: call.actionId } })).toBe(0);
    await client.close();
  });

  test("a cancelled request and a client that goes away both leave their actions cancelled", async () => {
    const agent = await seedAgent(["refund_invoice"]);
    const client = await mcpClient(agent);
    const abort = new AbortController();
    let named: (actionId: string) => void = () => {};
    const actionId = new Promise<string>((resolve) => (named = resolve));
    const cancelled = client.callTool({ name: "refund_invoice", arguments: SMALL_REFUND }, undefined, {
      signal: abort.signal,
      onprogress: (progress) => named(/\/actions\/([0-9a-f-]{36})/.exec(progress.message ?? "")?.[1] ?? ""),
    });
    const first = await actionId;
    abort.abort("The user stopped the run");
    await expect(cancelled).rejects.toThrow(/stopped the run/);
    const status = (id: string) => async () => (await e2eDb().action.findUniqueOrThrow({ where: { id } })).status;
    await expect.poll(status(first), { timeout: 30_000 }).toBe("cancelled");

    const gone = await pendingCall(client, "refund_invoice", SMALL_REFUND);
    gone.result.catch(() => {});
    await client.close();
    await expect.poll(status(gone.actionId), { timeout: 30_000 }).toBe("cancelled");
    expect((await e2eDb().action.findUniqueOrThrow({ where: { id: gone.actionId } })).statusReason).toBe(
      "The MCP client disconnected before the call was answered.",
    );
  });

  test("a key that is wrong is refused before any session starts", async () => {
    const agent = await seedAgent(["get_invoice"]);
    const wrong = { ...agent, headers: { Authorization: `Bearer ${agent.secret.slice(0, -2)}xx` } };
    await expect(mcpClient(wrong)).rejects.toMatchObject({ code: 401 });
  });
});
