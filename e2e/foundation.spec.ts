import { expect, test, type Page } from "@playwright/test";
import { hashPassword } from "@/lib/auth/password";
import { signIn, signInViaApi, signInViaForm } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";

const DEMO_PASSWORD = "countersign-demo";
/** The form's own alert (Next.js adds an empty route-announcer alert outside <main>). */
const signInError = (page: Page) => page.getByRole("main").getByRole("alert");
const NAV = ["Tasks", "Review queue", "Audit", "Admin"] as const;

const DEMO_NAV: Record<string, readonly (typeof NAV)[number][]> = {
  "requester@demo.test": ["Tasks"],
  "reviewer@demo.test": ["Review queue"],
  "reviewer2@demo.test": ["Review queue"],
  "auditor@demo.test": ["Audit"],
  "admin@demo.test": ["Audit", "Admin"],
};

test.describe("sign-in and roles", () => {
  for (const [email, expected] of Object.entries(DEMO_NAV)) {
    test(`${email} signs in with the demo password and sees exactly their navigation`, async ({ page }) => {
      await signInViaForm(page, email, DEMO_PASSWORD);
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav).toBeVisible();
      for (const item of NAV) {
        if (expected.includes(item)) await expect(nav.getByRole("link", { name: item })).toBeVisible();
        else await expect(nav.getByRole("link", { name: item })).toHaveCount(0);
      }
    });
  }

  test("unauthenticated visitors are sent to the sign-in page", async ({ page }) => {
    await page.goto("/queue");
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fqueue/);
    await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  });

  test("a wrong password gets one generic message, the same as an unknown email", async ({ page }) => {
    await signInViaForm(page, "requester@demo.test", "not-the-password");
    await expect(signInError(page)).toContainText("do not match");
    const known = await signInError(page).textContent();
    await signInViaForm(page, "nobody-at-all@demo.test", "not-the-password");
    await expect(signInError(page)).toContainText("do not match");
    expect(await signInError(page).textContent()).toBe(known);
  });

  test("repeated failures are throttled, even with the right password afterwards", async ({ page }) => {
    const tenant = await seedTenant();
    const email = tenant.users.reviewer.email;
    for (let i = 0; i < 5; i++) {
      await signInViaForm(page, email, "wrong-password");
      await expect(signInError(page)).toContainText("do not match");
    }
    await signInViaForm(page, email, TEST_PASSWORD);
    await expect(signInError(page)).toContainText("Too many failed attempts");
  });

  test("a user with no membership cannot get in", async ({ page }) => {
    const email = `loner-${Date.now()}@nowhere.test`;
    await e2eDb().user.create({ data: { email, name: "Loner", passwordHash: await hashPassword(TEST_PASSWORD) } });
    await signInViaForm(page, email, TEST_PASSWORD);
    await expect(signInError(page)).toContainText("not a member of any organisation");
  });

  test("sign-out ends the session", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    await page.goto("/signout");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.goto("/tasks");
    await expect(page).toHaveURL(/\/signin/);
  });
});

test.describe("pages outside your roles are refused on the server", () => {
  const cases = [
    ["requester", ["/queue", "/audit", "/admin"]],
    ["reviewer", ["/tasks", "/audit", "/admin"]],
    ["auditor", ["/tasks", "/queue", "/admin"]],
    ["admin", ["/tasks", "/queue"]],
  ] as const;
  for (const [role, paths] of cases) {
    test(`${role}: ${paths.join(", ")} answer 403`, async ({ page }) => {
      const tenant = await seedTenant();
      await signIn(page, tenant.users[role].email, TEST_PASSWORD);
      for (const p of paths) {
        const res = await page.goto(p);
        expect(res?.status(), p).toBe(403);
        await expect(page.getByRole("heading", { name: /roles do not allow/ })).toBeVisible();
      }
    });
  }
});

test.describe("tenants", () => {
  test("a user in two tenants switches between them; a tenant they are not in is refused", async ({ page }) => {
    const first = await seedTenant();
    const second = await seedTenant();
    const user = first.users.admin;
    await e2eDb().membership.create({ data: { tenantId: second.id, userId: user.id, roles: ["requester"] } });
    await signIn(page, user.email, TEST_PASSWORD);

    await page.goto(`/t/${first.slug}`);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Admin" })).toBeVisible();

    await page.getByLabel("Organisation").selectOption(second.id);
    await page.getByRole("button", { name: "Switch" }).click();
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);

    const stranger = await seedTenant();
    const res = await page.goto(`/t/${stranger.slug}`);
    expect(res?.status()).toBe(403);
    // The refusal did not switch anything.
    await page.goto("/");
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
  });

  test("a tenant cookie naming a tenant you do not belong to is only a preference: you stay in your own", async ({ page, context, baseURL }) => {
    const mine = await seedTenant();
    const other = await seedTenant();
    await signIn(page, mine.users.requester.email, TEST_PASSWORD);
    await context.addCookies([{ name: "cs_tenant", value: other.id, url: baseURL }]);
    const res = await page.goto("/tasks");
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks" })).toBeVisible();
    // The factories name a tenant "Tenant <suffix>" for slug "t-<suffix>".
    const header = page.getByRole("banner");
    await expect(header.getByText(`Tenant ${mine.slug.slice(2)}`)).toBeVisible();
    await expect(header.getByText(`Tenant ${other.slug.slice(2)}`)).toHaveCount(0);
  });
});

test("GET /api/health reports the database and the sandbox", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.database.ok).toBe(true);
  expect(["ok", "degraded"]).toContain(body.status);
  expect(body.sandbox).toHaveProperty("available");
  expect(JSON.stringify(body)).not.toMatch(/password|secret/i);
});

test("the session cookie carries no roles or tenant: the API session shows only the user id", async ({ request }) => {
  const tenant = await seedTenant();
  await signInViaApi(request, tenant.users.reviewer.email, TEST_PASSWORD);
  const session = await (await request.get("/api/auth/session")).json();
  expect(Object.keys(session.user)).toEqual(["id"]);
});
