import { expect, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { expectNoSeriousA11yViolations } from "@/e2e/tasks/task-helpers";
import { startCounterServer, startEverythingHttp, type RunningUpstream } from "@/tests/mcp-upstreams";
import { z } from "zod";
import { approveMcpTool } from "@/lib/mcp/upstream/approve-mcp-tool";
import { refreshMcpServer } from "@/lib/mcp/upstream/refresh-mcp-server";
import { registerMcpServer } from "@/lib/mcp/upstream/register-mcp-server";

let everything: RunningUpstream;

test.beforeAll(async () => {
  everything = await startEverythingHttp();
});
test.afterAll(async () => {
  await everything?.stop();
});

test.describe("upstream MCP servers", () => {
  test("an admin registers server-everything over HTTP, approves its tools, and finds them in the policy editor and the API-key scopes", async ({ page }) => {
    // A long walk through three pages (and an accessibility scan of the largest) on a shared machine.
    test.setTimeout(120_000);
    const tenant = await seedTenant();
    const secret = `Bearer e2e-${tenant.slug}-not-shown-again`;
    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    await page.getByRole("link", { name: "Upstream MCP servers" }).click();
    await expect(page.getByRole("heading", { name: "MCP servers", level: 1 })).toBeVisible();
    await expect(page.getByText("No MCP servers yet")).toBeVisible();

    const form = page.getByRole("form", { name: "Register an MCP server" });
    // A URL that is not http(s) is refused with what to do.
    await form.getByLabel("Server name").fill("everything");
    await form.getByLabel("Server URL").fill("ftp://127.0.0.1/mcp");
    await form.getByRole("button", { name: "Register server" }).click();
    await expect(form.getByRole("alert")).toContainText("must start with http:// or https://");

    await form.getByLabel("Server URL").fill(everything.url);
    await form.getByRole("button", { name: "Add a secret" }).click();
    await form.getByLabel("Header name 1").fill("Authorization");
    await form.getByLabel("Value 1").fill(secret);
    // Stdio is off on this console: the form says how the operator turns it on.
    await form.getByLabel("Command on this host (stdio)").check();
    await expect(form.getByText("MCP_STDIO_COMMANDS")).toBeVisible();
    await form.getByLabel("Streamable HTTP").check();
    await form.getByRole("button", { name: "Register server" }).click();
    await expect(form.getByRole("status")).toContainText("Registered everything");

    const server = page.getByRole("region", { name: "everything", exact: true });
    const tools = server.getByRole("table", { name: "Tools of everything" });
    await expect(tools.getByRole("row", { name: /everything__echo/ })).toContainText("new");
    await expect(server).toContainText("Authorization (set)");
    expect(await page.content()).not.toContain(secret);

    await tools.getByRole("button", { name: "Approve everything__echo" }).click();
    await expect(server.getByRole("status")).toContainText("Approved everything__echo");
    await tools.getByRole("button", { name: "Approve everything__get-sum" }).click();
    await expect(server.getByRole("status")).toContainText("Approved everything__get-sum");
    await expect(tools.getByRole("row", { name: /everything__echo/ })).toContainText("approved");
    await expect(tools.getByRole("button", { name: "Approve everything__echo" })).toHaveCount(0);

    await page.goto("/admin");
    const catalog = page.getByRole("table", { name: "Tools of this organisation" });
    const echo = catalog.getByRole("row", { name: /everything__echo/ });
    await expect(echo).toContainText("MCP server everything");
    await expect(echo).toContainText("no rule: every call needs approval");
    await expect(catalog.getByRole("row", { name: /everything__get-sum/ })).toBeVisible();
    // Tools not approved stay out.
    await expect(catalog.getByRole("row", { name: /everything__get-env/ })).toHaveCount(0);
    await expect(page.getByRole("checkbox", { name: "everything__echo" })).toBeVisible();
    // The policy accepts a rule for it by its qualified name.
    const editor = page.getByLabel(/Policy document \(JSON\)/);
    const document = JSON.parse(await editor.inputValue()) as { tools: Record<string, unknown> };
    document.tools["everything__echo"] = { rules: [{ id: "echo-read", effect: "allow", reason: "Echo changes nothing." }] };
    await editor.fill(JSON.stringify(document, null, 2));
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved as version 2" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Tools of this organisation" }).getByRole("row", { name: /everything__echo/ })).toContainText("1 rule");

    const types = (await e2eDb().auditEvent.findMany({ where: { tenantId: tenant.id, type: { startsWith: "mcp." } }, select: { type: true } })).map((e) => e.type);
    expect(types.filter((type) => type === "mcp.tool_approved")).toHaveLength(2);
    expect(types).toEqual(expect.arrayContaining(["mcp.server_registered", "mcp.tools_listed", "mcp.server_refused"]));
    const row = await e2eDb().mcpServer.findFirstOrThrow({ where: { tenantId: tenant.id } });
    expect(row.secretNames).toEqual(["Authorization"]);
    expect(row.sealedSecrets).not.toContain(secret);
    await page.goto("/admin/mcp");
    await expectNoSeriousA11yViolations(page);
  });

  test("a held tool whose server added 150 fields to its schema: the admin sees 100 changes and a count of the rest", async ({ page }) => {
    const tenant = await seedTenant();
    const token = `e2e-${tenant.slug}`;
    const counter = await startCounterServer({ token });
    try {
      const admin = tenant.users.admin.member;
      const { serverId } = await registerMcpServer(e2eDb(), {
        tenantId: tenant.id, admin, server: { name: "counter", transport: "http", url: counter.url, secrets: [{ name: "Authorization", value: `Bearer ${token}` }] },
      });
      const listed = await e2eDb().mcpTool.findFirstOrThrow({ where: { tenantId: tenant.id, serverId }, select: { id: true, pendingHash: true } });
      await approveMcpTool(e2eDb(), { tenantId: tenant.id, admin, toolId: listed.id, definitionHash: listed.pendingHash! });
      // The server now says the tool takes 150 more fields: 150 changed paths, and `required`.
      counter.setExtraInputFields(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field${String(i).padStart(3, "0")}`, z.string()])));
      expect(await refreshMcpServer(e2eDb(), { tenantId: tenant.id, admin, serverId })).toMatchObject({ ok: true, held: ["counter__count"] });

      await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
      await page.goto("/admin/mcp");
      const changes = page.getByRole("table", { name: /^Changes to counter__count/ });
      await expect(changes.getByRole("row").filter({ hasText: "inputSchema.properties.field000" })).toContainText("added");
      await expect(changes.getByRole("row").filter({ hasText: "inputSchema.properties.field099" })).toHaveCount(1);
      await expect(changes.getByRole("row").filter({ hasText: "inputSchema.properties.field100" })).toHaveCount(0);
      await expect(changes.getByTestId("more-changes")).toHaveText("and 51 more changed fields, not listed one by one");
      // The header, 100 changes and the count.
      await expect(changes.getByRole("row")).toHaveCount(102);
      // The browser gets what is shown, not the definitions themselves (the new one has field149).
      const sent = await (await page.request.get("/admin/mcp")).text();
      expect(sent).toContain("inputSchema.properties.field099");
      expect(sent).not.toContain("field149");
    } finally {
      await counter.stop();
    }
  });

  test("only admins reach the MCP servers page", async ({ page }) => {
    const tenant = await seedTenant();
    for (const role of ["reviewer", "requester", "auditor"] as const) {
      await page.context().clearCookies();
      await signIn(page, tenant.users[role].email, TEST_PASSWORD);
      expect((await page.goto("/admin/mcp"))?.status()).toBe(403);
    }
  });
});
