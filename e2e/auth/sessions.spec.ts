import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { signIn, signInViaApi } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { signInFrom } from "@/e2e/support/sign-in-from";

const SESSION_COOKIE = "next-auth.session-token";
const NEW_PASSWORD = "four unrelated words here";

/** A fresh browser context signed in as `email` (its own cookie jar: another browser). */
async function signedInContext(browser: Browser, baseURL: string | undefined, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, email, TEST_PASSWORD);
  return { context, page };
}

test.describe("sessions end on the server", () => {
  test("after signing out, the old session cookie replayed in another browser is refused: pages go to sign-in, APIs answer 401", async ({ page, browser, baseURL }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    await page.goto("/audit");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" })).toBeVisible();
    const copied = (await page.context().cookies()).filter((c) => c.name === SESSION_COOKIE);
    expect(copied).toHaveLength(1);

    await page.goto("/signout");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);

    const thief = await browser.newContext({ baseURL });
    await thief.addCookies(copied);
    const thiefPage = await thief.newPage();
    await thiefPage.goto("/audit");
    await expect(thiefPage).toHaveURL(/\/signin\?callbackUrl=/);
    await expect(thiefPage.getByRole("button", { name: "Sign in" })).toBeVisible();
    const api = await thief.request.get("/api/audit/export?format=csv");
    expect(api.status()).toBe(401);
    expect((await api.json()).error.code).toBe("unauthenticated");
    // next-auth's session endpoint agrees with the session store: no session, as for no cookie.
    const session = await thief.request.get("/api/auth/session");
    expect(session.status()).toBe(200);
    expect(await session.json()).toEqual({});
    await thief.close();

    const row = await e2eDb().session.findFirstOrThrow({ where: { userId: tenant.users.auditor.id }, orderBy: { createdAt: "desc" } });
    expect(row.revokedReason).toBe("signed_out");
  });

  test("changing the password on the account page ends the session in another browser", async ({ page, browser, baseURL }) => {
    const tenant = await seedTenant();
    const user = tenant.users.reviewer;
    await signIn(page, user.email, TEST_PASSWORD);
    const other = await signedInContext(browser, baseURL, user.email);
    await other.page.goto("/queue");
    await expect(other.page.getByRole("heading", { name: "Review queue", level: 1 })).toBeVisible();

    await page.goto("/queue");
    await page.getByRole("link", { name: "Account" }).click();
    await expect(page).toHaveURL(/\/account$/);
    await expect(page.getByRole("table", { name: "Your signed-in sessions" }).getByRole("row")).toHaveCount(3);

    const form = page.getByRole("form", { name: "Change password" });
    await form.getByLabel("Current password").fill("not my password");
    await form.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel("Repeat new password").fill(NEW_PASSWORD);
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("alert")).toHaveText("Your current password is not correct. Check it and try again.");

    await form.getByLabel("Current password").fill(TEST_PASSWORD);
    await form.getByLabel("New password", { exact: true }).fill("too short");
    await form.getByLabel("Repeat new password").fill("too short");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("alert")).toHaveText("Choose a new password of at least 15 characters.");

    await form.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel("Repeat new password").fill(NEW_PASSWORD);
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("status")).toHaveText("Password changed. 1 other session was signed out.");

    // This browser stays signed in; the other one is out.
    await page.goto("/queue");
    await expect(page.getByRole("heading", { name: "Review queue", level: 1 })).toBeVisible();
    expect(await (await page.request.get("/api/auth/session")).json()).toMatchObject({ user: { id: user.id } });
    await other.page.goto("/queue");
    await expect(other.page).toHaveURL(/\/signin/);
    expect(await (await other.context.request.get("/api/auth/session")).json()).toEqual({});
    await other.context.close();

    const fresh = await browser.newContext({ baseURL });
    expect(await signInFrom("127.0.0.6", user.email, TEST_PASSWORD)).toBe("invalid");
    await signInViaApi(fresh.request, user.email, NEW_PASSWORD);
    await fresh.close();
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: "account.password_changed", actorId: user.id } })).toBe(1);
  });

});

test.describe("sign-in throttling by client", () => {
  // Each test signs in from its own loopback address: the server sees them as different clients.
  test("a stranger's failures on another client do not lock the owner out", async () => {
    const tenant = await seedTenant();
    const email = tenant.users.requester.email;
    for (let i = 0; i < 5; i++) expect(await signInFrom("127.0.0.2", email, `wrong-${i}`)).toBe("invalid");
    expect(await signInFrom("127.0.0.2", email, TEST_PASSWORD)).toBe("throttled");
    expect(await signInFrom("127.0.0.3", email, TEST_PASSWORD)).toBeNull();
  });

  test("a client spraying emails is throttled after its limit, whatever X-Forwarded-For it forges", async () => {
    const tenant = await seedTenant();
    const outcomes: Array<string | null> = [];
    for (let i = 0; i < 21; i++) {
      outcomes.push(await signInFrom("127.0.0.4", `spray-${i}-${tenant.slug}@nowhere.test`, "password123", {
        "X-Forwarded-For": `198.51.100.${i + 1}`,
        "X-Countersign-Peer-Address": `198.51.100.${i + 101}`,
      }));
    }
    expect(outcomes.slice(0, 20).every((o) => o === "invalid")).toBe(true);
    expect(outcomes[20]).toBe("throttled");
    // Even the right password of a real account, from that client.
    expect(await signInFrom("127.0.0.4", tenant.users.auditor.email, TEST_PASSWORD, { "X-Forwarded-For": "203.0.113.50" })).toBe("throttled");
    expect(await signInFrom("127.0.0.5", tenant.users.auditor.email, TEST_PASSWORD)).toBeNull();
  });
});

/** Signs in through the form already on the page (signInViaForm would open /signin afresh). */
async function fillSignInForm(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test.describe("after sign-in, only same-origin paths", () => {
  const attacks = {
    "a backslash": "/\\evil.example",
    "a tab between the slashes": "/\t/evil.example",
    "a protocol-relative URL": "//evil.example",
    "an absolute URL": "https://evil.example/",
    "a dot segment": "/.//evil.example",
  };
  for (const [what, callbackUrl] of Object.entries(attacks)) {
    test(`a callbackUrl with ${what} lands on the console's start page`, async ({ page, baseURL }) => {
      const visited: string[] = [];
      await page.context().route((url) => url.hostname === "evil.example", (route) => {
        visited.push(route.request().url());
        return route.fulfill({ status: 200, contentType: "text/html", body: "<h1>Evil</h1>" });
      });
      const tenant = await seedTenant();
      await page.goto(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await fillSignInForm(page, tenant.users.requester.email);
      await expect(page).toHaveURL(`${baseURL}/tasks`);
      // Signed in already, the sign-in page sends the same callback to the start page too.
      await page.goto(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await expect(page).toHaveURL(`${baseURL}/tasks`);
      expect(visited).toEqual([]);
    });
  }

  test("a same-origin callbackUrl is kept", async ({ page, baseURL }) => {
    const tenant = await seedTenant();
    await page.goto(`/signin?callbackUrl=${encodeURIComponent("/tasks?from=signin")}`);
    await fillSignInForm(page, tenant.users.requester.email);
    await expect(page).toHaveURL(`${baseURL}/tasks?from=signin`);
  });
});

test.describe("choosing the organisation", () => {
  test("a stale tenant cookie for an organisation the user has left does not strand them", async ({ page }) => {
    const first = await seedTenant();
    const second = await seedTenant();
    const user = first.users.requester;
    const extra = await e2eDb().membership.create({ data: { tenantId: second.id, userId: user.id, roles: ["auditor"] } });
    await signIn(page, user.email, TEST_PASSWORD);
    await page.goto(`/t/${second.slug}`);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Audit" })).toBeVisible();
    expect((await page.context().cookies()).find((c) => c.name === "cs_tenant")?.value).toBe(second.id);

    await e2eDb().membership.delete({ where: { id: extra.id } });
    const res = await page.goto("/tasks");
    expect(res?.status()).toBe(200);
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(0);
  });

  test("the tenant switcher fixes a cookie naming an organisation the user was removed from", async ({ page }) => {
    const first = await seedTenant();
    const second = await seedTenant();
    const third = await seedTenant();
    const user = first.users.admin;
    await e2eDb().membership.create({ data: { tenantId: second.id, userId: user.id, roles: ["requester"] } });
    const gone = await e2eDb().membership.create({ data: { tenantId: third.id, userId: user.id, roles: ["auditor"] } });
    await signIn(page, user.email, TEST_PASSWORD);
    await page.goto(`/t/${third.slug}`);
    await expect.poll(async () => (await page.context().cookies()).find((c) => c.name === "cs_tenant")?.value).toBe(third.id);
    await e2eDb().membership.delete({ where: { id: gone.id } });

    const landing = await page.goto("/");
    expect(landing?.status()).toBe(200);
    const nav = page.getByRole("navigation", { name: "Main" });
    const switcher = page.getByLabel("Organisation");
    await expect(switcher.getByRole("option")).toHaveCount(2);
    // The stale choice fell back to the first remaining organisation by name: switch to the other.
    const inFirst = await nav.getByRole("link", { name: "Admin" }).isVisible();
    const target = inFirst ? second : first;
    await switcher.selectOption(target.id);
    await page.getByRole("button", { name: "Switch" }).click();
    await expect(nav.getByRole("link", { name: inFirst ? "Tasks" : "Admin" })).toBeVisible();
    await expect.poll(async () => (await page.context().cookies()).find((c) => c.name === "cs_tenant")?.value).toBe(target.id);
  });

  test("a link on another site to /t/<slug> does not switch the organisation; the person confirms first", async ({ page, baseURL }) => {
    const home = await seedTenant();
    const target = await seedTenant();
    const user = home.users.requester;
    await e2eDb().membership.create({ data: { tenantId: target.id, userId: user.id, roles: ["auditor"] } });
    await signIn(page, user.email, TEST_PASSWORD);
    const nav = page.getByRole("navigation", { name: "Main" });
    // Typed into the address bar (Sec-Fetch-Site: none): that may switch.
    await page.goto(`/t/${home.slug}`);
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();

    await page.route("https://evil.example/**", (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: `<a href="${baseURL}/t/${target.slug}">Open your dashboard</a>` }));
    await page.goto("https://evil.example/lure");
    await page.getByRole("link", { name: "Open your dashboard" }).click();
    await expect(page).toHaveURL(`${baseURL}/t/${target.slug}/confirm`);
    await expect(page.getByRole("heading", { name: /^Switch to Tenant / })).toBeVisible();

    await page.goto("/");
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(0);
    const forged = await page.request.get(`/t/${target.slug}`, { headers: { "Sec-Fetch-Site": "cross-site" }, maxRedirects: 0 });
    expect(forged.status()).toBe(303);
    expect(forged.headers()["location"]).toBe(`/t/${target.slug}/confirm`);
    expect(forged.headers()["set-cookie"] ?? "").not.toContain("cs_tenant");

    // The person asks for it: a same-origin navigation switches.
    await page.goto(`/t/${target.slug}/confirm`);
    await page.getByRole("link", { name: /^Switch to Tenant / }).click();
    await expect(nav.getByRole("link", { name: "Audit" })).toBeVisible();
  });
});
