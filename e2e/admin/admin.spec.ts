import { expect, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { expectNoSeriousA11yViolations } from "@/e2e/tasks/task-helpers";

test.describe("admin", () => {
  test("changes a member's role (audited) and cannot remove the last admin", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    const reviewerRoles = page.getByRole("form", { name: `Roles of ${tenant.users.reviewer.email}` });
    await reviewerRoles.getByRole("checkbox", { name: "auditor" }).check();
    await reviewerRoles.getByRole("button", { name: /Save roles/ }).click();
    await expect(page.getByRole("form", { name: `Roles of ${tenant.users.reviewer.email}` }).getByRole("checkbox", { name: "auditor" })).toBeChecked();
    await expect.poll(async () => (await e2eDb().membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.reviewer.id } })).roles.sort()).toEqual(["auditor", "reviewer"]);
    const event = await e2eDb().auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id, type: "member.roles_changed" } });
    expect(event.data).toMatchObject({ member: tenant.users.reviewer.email, before: ["reviewer"], after: ["reviewer", "auditor"] });

    const mine = page.getByRole("form", { name: `Roles of ${tenant.users.admin.email}` });
    await mine.getByRole("checkbox", { name: "admin" }).uncheck();
    await mine.getByRole("checkbox", { name: "auditor" }).check();
    await mine.getByRole("button", { name: /Save roles/ }).click();
    await expect(mine.getByRole("alert")).toContainText("only admin");
    expect((await e2eDb().membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.admin.id } })).roles).toEqual(["admin"]);
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: "member.roles_refused", outcome: "refused" } })).toBe(1);
  });

  test("a policy with broken CEL is refused with its path; a valid edit becomes version 2", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    const editor = page.getByLabel(/Policy document \(JSON\)/);
    const original = await editor.inputValue();
    const document = JSON.parse(original) as { tools: Record<string, { rules: Array<{ when?: string; reason: string }> }> };

    const broken = structuredClone(document);
    broken.tools.send_email.rules[0].when = "args.to ==== 'x'";
    await editor.fill(JSON.stringify(broken, null, 2));
    await page.getByRole("button", { name: "Validate" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("tools.send_email.rules.0.when");
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("was not saved");
    await expect(page.getByRole("main").getByRole("alert")).toContainText("tools.send_email.rules.0.when");
    expect(await e2eDb().toolPolicy.count({ where: { tenantId: tenant.id } })).toBe(1);

    await editor.fill("{ \"defaults\": ");
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("not valid JSON");

    const valid = structuredClone(document);
    valid.tools.send_email.rules[0].reason = "Raw IP recipients skip the domain checks (edited in e2e).";
    await editor.fill(JSON.stringify(valid, null, 2));
    await page.getByLabel("Comment for the history (optional)").fill("clearer reason");
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved as version 2" })).toBeVisible();
    const saved = await e2eDb().toolPolicy.findFirstOrThrow({ where: { tenantId: tenant.id, version: 2 } });
    expect(JSON.stringify(saved.document)).toContain("edited in e2e");
    await expect(page.getByRole("list", { name: "Policy versions, newest first" })).toContainText("Version 2");
    await expect(page.getByRole("list", { name: "Policy versions, newest first" })).toContainText("clearer reason");
    // The history lists versions; each one's document is a page of its own.
    await page.getByRole("list", { name: "Policy versions, newest first" }).getByRole("link", { name: "Version 2" }).click();
    await expect(page).toHaveURL(/\/admin\/policy\/2$/);
    await expect(page.getByLabel("Policy version 2")).toContainText("edited in e2e");
    await page.goto("/admin");
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: "policy.saved" } })).toBe(1);

    // A save based on a version that is no longer the newest is refused.
    await e2eDb().toolPolicy.create({ data: { tenantId: tenant.id, version: 3, document: saved.document as object } });
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("newer policy");
    expect(await e2eDb().toolPolicy.count({ where: { tenantId: tenant.id } })).toBe(3);
  });

  test("creates an API key (secret shown once, not on reload) and revokes it", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    await expect(page.getByText("No API keys yet")).toBeVisible();
    await page.getByLabel("Key name").fill("billing-bot");
    await page.getByRole("checkbox", { name: "get_invoice" }).check();
    await page.getByRole("checkbox", { name: "send_email" }).check();
    await page.getByRole("button", { name: "Create API key" }).click();
    const secret = page.getByLabel("New API key secret");
    await expect(secret).toHaveValue(/^cs_live_[a-z0-9]{12}_/);
    const value = await secret.inputValue();
    const key = await e2eDb().apiKey.findFirstOrThrow({ where: { tenantId: tenant.id, name: "billing-bot" } });
    expect(value).toContain(key.prefix);
    expect(key.allowedTools.sort()).toEqual(["get_invoice", "send_email"]);
    const row = page.getByRole("row", { name: /billing-bot/ });
    await expect(row).toContainText("active");

    await page.reload();
    await expect(page.getByLabel("New API key secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(value);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke billing-bot" }).click();
    await expect(page.getByRole("row", { name: /billing-bot/ })).toContainText("revoked");
    expect((await e2eDb().apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).not.toBeNull();
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: { in: ["api_key.created", "api_key.revoked"] } } })).toBe(2);

    await page.getByRole("button", { name: "Create API key" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("name");
  });

  test("requesters and auditors cannot open /admin; axe finds nothing serious", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    expect((await page.goto("/admin"))?.status()).toBe(403);
    await page.context().clearCookies();
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    expect((await page.goto("/admin"))?.status()).toBe(403);
    await page.context().clearCookies();
    await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
    await page.goto("/admin");
    await expectNoSeriousA11yViolations(page);
  });
});
