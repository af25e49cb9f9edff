import { expect, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { decide, expectError, seedAgent } from "@/e2e/api/agent-fixtures";
import { expectNoSeriousA11yViolations } from "@/e2e/tasks/task-helpers";

const refund = { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" }, reason: "Customer asked" };

test.describe("the stop button", () => {
  test("an admin pauses every agent: a banner on every page, proposals and executions refused with 423 agents_paused, then resumed", async ({ page, browser, request }) => {
    test.slow();
    const agent = await seedAgent(["refund_invoice", "get_invoice"]);
    const { tenant } = agent;
    // An action approved before the pause: it must wait, unused, until the resume.
    const submitted = await request.post("/api/v1/actions", { data: refund, headers: agent.headers });
    expect(submitted.status()).toBe(201);
    const pending = (await submitted.json()) as { id: string; payloadHash: string };
    await decide(agent, pending.id, pending.payloadHash, "approve", "ok");

    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    const stop = page.getByRole("region", { name: "Stop agents" });
    await stop.getByLabel(/Reason/).fill("refunds misbehaving");
    page.once("dialog", (dialog) => void dialog.accept());
    await stop.getByRole("button", { name: "Pause all agents" }).click();
    await expect(stop.getByRole("button", { name: "Resume agents" })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Agents are paused" })).toContainText("refunds misbehaving");
    await expectNoSeriousA11yViolations(page);

    // Every member sees it, on every page.
    const reviewer = await browser.newContext();
    const reviewerPage = await reviewer.newPage();
    await signIn(reviewerPage, tenant.users.reviewer.email, TEST_PASSWORD);
    for (const path of ["/", "/queue", `/actions/${pending.id}`]) {
      await reviewerPage.goto(path);
      await expect(reviewerPage.getByRole("status").filter({ hasText: "Agents are paused" }), path).toContainText(tenant.users.admin.email);
      // Only an admin is offered the way to resume.
      await expect(reviewerPage.getByRole("link", { name: /Resume/ })).toHaveCount(0);
    }
    // A reviewer cannot press the button.
    expect((await reviewerPage.goto("/admin"))?.status()).toBe(403);
    await reviewer.close();

    const before = await e2eDb().action.count({ where: { tenantId: tenant.id } });
    await expectError(await request.post("/api/v1/actions", { data: refund, headers: agent.headers }), 423, "agents_paused");
    expect(await e2eDb().action.count({ where: { tenantId: tenant.id } })).toBe(before);
    const execute = () => request.post(`/api/v1/actions/${pending.id}/execute`, { data: { payloadHash: pending.payloadHash }, headers: { ...agent.headers, "Idempotency-Key": "run-1" } });
    await expectError(await execute(), 423, "agents_paused");
    expect(await e2eDb().action.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({ status: "approved", consumedAt: null });

    await page.getByRole("region", { name: "Stop agents" }).getByRole("button", { name: "Resume agents" }).click();
    await expect(page.getByRole("region", { name: "Stop agents" }).getByRole("button", { name: "Pause all agents" })).toBeVisible();
    await page.goto("/");
    await expect(page.getByRole("status").filter({ hasText: "Agents are paused" })).toHaveCount(0);
    const ran = await execute();
    expect(ran.status(), await ran.text()).toBe(200);
    const types = (await e2eDb().auditEvent.findMany({ where: { tenantId: tenant.id, type: { startsWith: "tenant.agents_" } }, orderBy: { id: "asc" } })).map((e) => e.type);
    expect(types).toEqual(["tenant.agents_paused", "tenant.agents_resumed"]);
  });

  test("pausing one API key refuses only that agent", async ({ page, request }) => {
    const stopped = await seedAgent(["get_invoice"]);
    const running = await seedAgent(["get_invoice"], stopped.tenant);
    await signIn(page, stopped.tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    const row = page.getByRole("row", { name: new RegExp(stopped.name) });
    await row.getByRole("button", { name: `Pause ${stopped.name}` }).click();
    await expect(row.getByText(/^paused/)).toBeVisible();

    const read = { tool: "get_invoice", args: { invoice_number: "INV-1042" }, reason: "Check" };
    await expectError(await request.post("/api/v1/actions", { data: read, headers: stopped.headers }), 423, "agents_paused");
    expect((await request.post("/api/v1/actions", { data: read, headers: running.headers })).status()).toBe(200);

    await row.getByRole("button", { name: `Resume ${stopped.name}` }).click();
    await expect(row.getByText("active")).toBeVisible();
    expect((await request.post("/api/v1/actions", { data: read, headers: stopped.headers })).status()).toBe(200);
  });
});
