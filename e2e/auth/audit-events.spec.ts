import { expect, test, type Page } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { expectError, seedAgent } from "@/e2e/api/agent-fixtures";

const WRONG_PASSWORD = "Wrong-Pa55word-the-log-must-never-hold";

/** The audit explorer filtered to one event type, through its form, as an auditor would. */
async function filterByType(page: Page, type: string) {
  await page.goto("/audit");
  const filters = page.getByRole("form", { name: "Audit filters" });
  await filters.getByLabel("Event type").selectOption(type);
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`type=${type.replace(".", "\\.")}`));
}

test.describe("sign-ins in the audit log", () => {
  test("a wrong password then the right one in the browser: an auditor sees one failure and one sign-in, filtered by type", async ({ page, browser, baseURL }) => {
    const tenant = await seedTenant();
    const user = tenant.users.requester;
    await page.goto("/signin");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(WRONG_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "do not match" })).toHaveText("That email and password do not match an account.");
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${baseURL}/tasks`);

    const auditor = await browser.newContext({ baseURL });
    const auditorPage = await auditor.newPage();
    await signIn(auditorPage, tenant.users.auditor.email, TEST_PASSWORD);
    const rows = auditorPage.getByTestId("audit-row");

    // A failure is audited off the sign-in's path: it may land a moment after the answer.
    await expect(async () => {
      await filterByType(auditorPage, "auth.sign_in_failed");
      await expect(rows.filter({ hasText: user.email })).toHaveCount(1);
    }).toPass({ timeout: 15_000 });
    await expect(rows.first()).toContainText("auth.sign_in_failed");
    await expect(rows.filter({ hasText: "auth.signed_in" })).toHaveCount(0);

    await filterByType(auditorPage, "auth.signed_in");
    await expect(rows.filter({ hasText: user.email })).toHaveCount(1);
    await expect(rows.filter({ hasText: "auth.sign_in_failed" })).toHaveCount(0);
    await auditor.close();

    const events = await e2eDb().auditEvent.findMany({ where: { tenantId: tenant.id, actorId: user.id, type: { startsWith: "auth." } } });
    expect(events.map((e) => [e.type, e.outcome, e.status]).sort()).toEqual([["auth.sign_in_failed", "refused", "invalid"], ["auth.signed_in", "ok", null]]);
    expect(JSON.stringify(events, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(WRONG_PASSWORD);
  });

  test("signing out and switching organisation are audited once each", async ({ page }) => {
    const home = await seedTenant();
    const other = await seedTenant();
    const user = home.users.reviewer;
    await e2eDb().membership.create({ data: { tenantId: other.id, userId: user.id, roles: ["auditor"] } });
    await signIn(page, user.email, TEST_PASSWORD);
    // Which organisation a new session starts in depends on the (random) names: start from home.
    await page.goto(`/t/${home.slug}`);
    await expect.poll(async () => (await page.context().cookies()).find((c) => c.name === "cs_tenant")?.value).toBe(home.id);
    await page.goto(`/t/${other.slug}`);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" })).toBeVisible();
    await page.goto("/signout");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);

    const count = (tenantId: string, type: string) => e2eDb().auditEvent.count({ where: { tenantId, type, actorId: user.id } });
    const switched = await e2eDb().auditEvent.findMany({ where: { tenantId: other.id, type: "auth.tenant_switched", actorId: user.id } });
    expect(switched).toHaveLength(1);
    expect(switched[0].data).toMatchObject({ fromTenantId: home.id, toTenant: other.slug, via: "link" });
    // Sign-in and sign-out in both organisations: the session could act in either.
    for (const tenant of [home, other]) {
      expect(await count(tenant.id, "auth.signed_in")).toBe(1);
      expect(await count(tenant.id, "auth.signed_out")).toBe(1);
    }
  });
});

test.describe("refused API-key uses in the audit log", () => {
  test("50 requests with a real key's prefix and a wrong secret: 50 refusals, then one api_key.auth_failed with the count when the minute ends", async ({ request }) => {
    // The coalescing window is a minute (lib/api-keys/audit-api-key-failure.ts).
    test.setTimeout(150_000);
    const agent = await seedAgent();
    const forged = agent.secret.slice(0, -4) + (agent.secret.endsWith("AAAA") ? "BBBB" : "AAAA");
    for (let i = 0; i < 50; i++) {
      await expectError(await request.post("/api/v1/actions", { data: { code: "print(1)", language: "python" }, headers: { Authorization: `Bearer ${forged}` } }), 401, "invalid_api_key");
    }
    const events = () => e2eDb().auditEvent.findMany({ where: { tenantId: agent.tenant.id, type: "api_key.auth_failed" } });
    expect(await events()).toHaveLength(0);
    await expect.poll(async () => (await events()).length, { timeout: 100_000, intervals: [2_000] }).toBe(1);
    const [event] = await events();
    expect(event).toMatchObject({ outcome: "refused", subjectId: agent.keyId, status: "wrong_secret", data: { reason: "wrong_secret", attempts: 50 } });
    expect(JSON.stringify(event.data)).not.toContain(forged.slice(-43)); // its random part, which may itself contain "_"
  });
});
