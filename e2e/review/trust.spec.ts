import { expect, test, type Page } from "@playwright/test";
import { savePolicy } from "@/lib/policy/save-policy";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";
import { E2E_PORT } from "@/e2e/support/config";
import { actionRow, addMember, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND, type TestTenant, approveOnActionPage } from "@/e2e/review/fixtures";

const CYRILLIC_A = "\u0430";
const tag = (page: Page, id: string, path: string) =>
  page.getByRole("region", { name: /^Risk tags/ }).getByRole("listitem").filter({ hasText: id })
    // One chip per finding lists its fields ("… · args.body, reason"): the path is one of them.
    .filter({ has: page.locator("span", { hasText: new RegExp(`· (?:[\\w.\\[\\]]+, )*${path.replace(/[.[\]]/g, "\\$&")}(?:, [\\w.\\[\\]]+)*(?: · line \\d+)?$`) }) });

/** The tenant's own domains include example.com, so a lookalike of it is a lookalike of a verified domain. */
async function withExampleDomain(tenant: TestTenant) {
  const row = await e2eDb().tenant.findUniqueOrThrow({ where: { id: tenant.id } });
  await e2eDb().tenant.update({ where: { id: tenant.id }, data: { domains: [...row.domains, "example.com"] } });
}

test.describe("trusted rendering", () => {
  test("hidden characters, a lookalike domain and HTML in the arguments and the reason are shown as text, with tags on the right fields", async ({ page }) => {
    const tenant = await seedTenant();
    await withExampleDomain(tenant);
    const { id } = await propose(tenant, "send_email", {
      to: "billing@example.com",
      subject: "Invoice \u202Egnp.exe",
      body: `Pay at https://ex${CYRILLIC_A}mple.com/pay\u200b today. <img src=x onerror=alert(1)><b>bold</b>`,
    }, { reason: "Routine\u200b reminder" });
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);

    await expect(tag(page, "text.bidi-control", "args.subject")).toContainText("U+202E");
    await expect(tag(page, "text.zero-width", "args.body")).toBeVisible();
    await expect(tag(page, "text.zero-width", "reason")).toBeVisible();
    await expect(tag(page, "text.confusable-domain", "args.body")).toContainText("ex⟦U+0430⟧mple.com");
    await expect(tag(page, "text.confusable-domain", "args.body")).toContainText("example.com");

    const args = page.getByLabel("Arguments as plain text");
    await expect(args.locator('[data-hidden-char="U+202E"]')).toHaveText("⟦U+202E⟧");
    await expect(args.locator('[data-hidden-char="U+200B"]')).toHaveCount(1);
    await expect(args.locator('[data-lookalike="U+0430"]')).toContainText("⟦U+0430⟧");
    expect(await args.textContent()).not.toMatch(/[\u202e\u200b]/);
    await expect(page.getByTestId("agent-reason").locator('[data-hidden-char="U+200B"]')).toBeVisible();
    // The page title (the tool's summary of the arguments) is marked too.
    await expect(page.getByRole("heading", { level: 1 }).locator('[data-hidden-char="U+202E"]')).toBeVisible();

    // Markup in an argument is text, never HTML.
    await expect(args).toContainText("<img src=x onerror=alert(1)><b>bold</b>");
    await expect(page.getByRole("main").locator("img, b")).toHaveCount(0);
    expect(dialogs).toEqual([]);
  });

  test("an e-mail address with a lookalike domain inside the body is tagged with the reason and marked where the body is read", async ({ page }) => {
    const tenant = await seedTenant();
    await withExampleDomain(tenant);
    // Cyrillic а in a Latin label, and a label of Cyrillic letters only (асе reads "ace").
    const { id } = await propose(tenant, "send_email", {
      to: "billing@example.com",
      subject: "Invoice",
      body: `Reply to billing@${CYRILLIC_A}cme.example. Copies go to ops@${CYRILLIC_A}\u0441\u0435.example.`,
    });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);

    const address = tag(page, "address.outside-domain", "body");
    await expect(address).toContainText("billing@⟦U+0430⟧cme.example");
    await expect(address).toContainText("xn--cme-5cd.example");
    const args = page.getByLabel("Arguments as plain text");
    await expect(args.locator('[data-lookalike="U+0430"]')).toHaveCount(2);
    await expect(args.locator('[data-lookalike="U+0441"]')).toContainText("⟦U+0441⟧");
    await expect(args.locator('[data-lookalike="U+0435"]')).toContainText("⟦U+0435⟧");
  });

  test("code reads as it runs: a direction override in a string is a marker, not a reordering (Trojan Source)", async ({ page }) => {
    const tenant = await seedTenant();
    // Displayed raw, U+202E…U+2066 make the check look as if it compares with "user".
    const code = ['role = "admin"', 'if role != "user\u202E \u2066# only users\u2069 \u2066":', '    print("granted")'].join("\n");
    const { id } = await propose(tenant, "run_python", { code, language: "python" });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const line = page.getByRole("region", { name: "python code with scan findings" });
    await expect(line.locator('[data-hidden-char="U+202E"]')).toHaveText("⟦U+202E⟧");
    await expect(line.locator('[data-hidden-char="U+2066"]')).toHaveCount(2);
    await expect(line.locator('[data-hidden-char="U+2069"]')).toHaveCount(1);
    expect(await line.textContent()).not.toMatch(/[\u202e\u2066\u2069]/);
    await expect(line).toContainText('if role != "user');
  });

  test("a 20,000-character line is wrapped on screen and tagged on its field", async ({ page }) => {
    const tenant = await seedTenant();
    await withExampleDomain(tenant);
    const { id } = await propose(tenant, "send_email", { to: "billing@example.com", subject: "Long", body: `${"x".repeat(19_990)}HIDDEN-END` });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(tag(page, "text.long-line", "args.body")).toContainText("20,000-character line");
    const args = page.getByLabel("Arguments as plain text");
    await expect(args).toContainText("HIDDEN-END");
    const overflow = await args.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    // Shown once: the effect table refers to the body in Arguments instead of repeating 20,000 characters.
    const effect = page.getByRole("region", { name: "Effect: before and after" });
    await expect(effect.getByRole("link", { name: "same as args.body in Arguments (20,000 characters)" })).toBeVisible();
    await expect(effect).not.toContainText("HIDDEN-END");
  });

  test("a value the console cannot inspect is marked, has no bulk checkbox, and can still be approved on its own", async ({ page }) => {
    const tenant = await seedTenant();
    await withExampleDomain(tenant);
    const blob = Buffer.from(Array.from({ length: 4_000 }, (_, i) => (i * 7919) % 256)).toString("base64");
    const { id } = await propose(tenant, "send_email", { to: "billing@example.com", subject: "Attachment", body: blob }, { stepKey: "s1" });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(page.locator(`[data-action-id="${id}"]`)).toBeVisible();
    await expect(page.locator(`[data-action-id="${id}"]`).getByRole("checkbox")).toHaveCount(0);
    await page.goto(`/actions/${id}`);
    await expect(tag(page, "text.not-inspectable", "args.body")).toBeVisible();
    await expect(page.getByRole("note").filter({ hasText: "Not inspectable" })).toContainText("args.body");
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
    expect((await actionRow(id)).status).toBe("approved");
  });
});

const SECURITY = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

function expectSecurityHeaders(url: string, headers: Record<string, string>, kind: "page" | "api") {
  for (const [name, value] of Object.entries(SECURITY)) expect(headers[name], `${name} on ${url}`).toBe(value);
  expect(headers["permissions-policy"], url).toContain("publickey-credentials-get=(self)");
  expect(headers["permissions-policy"], url).toContain("camera=()");
  const csp = headers["content-security-policy"] ?? "";
  expect(csp, url).toContain("frame-ancestors 'none'");
  if (kind === "page") {
    const script = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src")) ?? "";
    expect(script, url).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
    expect(script, url).toContain("'strict-dynamic'");
    expect(script, url).not.toContain("'unsafe-inline'");
  } else {
    expect(csp, url).toContain("default-src 'none'");
  }
}

test.describe("frame and page protection", () => {
  const ROLES = [null, "requester", "reviewer", "auditor", "admin"] as const;
  for (const role of ROLES) {
    test(`every page ${role ? `${role === "auditor" || role === "admin" ? "an" : "a"} ${role} opens` : "a signed-out visitor reaches"} sends the security headers, each a fresh nonce, and works under the policy`, async ({ page }) => {
      const tenant = await seedTenant();
      const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
      const paths: Record<(typeof ROLES)[number] & string | "none", string[]> = {
        none: ["/signin", "/queue", "/"],
        requester: ["/tasks", "/account", "/"],
        reviewer: ["/queue", `/actions/${id}`],
        auditor: ["/audit", `/actions/${id}`],
        admin: ["/admin", "/admin/mcp", "/audit"],
      };
      const violations: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) violations.push(`${m.text()} (${page.url()})`);
      });
      if (role) await signInAs(page, tenant.users[role].email);
      for (const path of paths[role ?? "none"]) {
        const first = await page.request.get(path, { maxRedirects: 0 });
        expectSecurityHeaders(`${path} as ${role ?? "nobody"}`, first.headers(), "page");
        const second = await page.request.get(path, { maxRedirects: 0 });
        expect(second.headers()["content-security-policy"]).not.toBe(first.headers()["content-security-policy"]);
        await page.goto(path);
        await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
      }
      // Next's scripts and styles ran under the policy without a single refusal.
      expect(violations).toEqual([]);
    });
  }

  test("API routes send the security headers with a policy that allows nothing", async ({ request }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    for (const path of ["/api/health", "/api/v1/openapi.json", "/api/auth/session", `/api/v1/actions/${id}`]) {
      const res = await request.get(path, { maxRedirects: 0 });
      expectSecurityHeaders(path, res.headers(), "api");
    }
  });

  test("the action page does not render inside another origin's frame", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    const origin = `http://127.0.0.1:${E2E_PORT}`;
    // A control frame from the same server address without the headers renders: frames work here.
    await page.route(`${origin}/frame-control`, (route) => route.fulfill({ contentType: "text/html", body: "<p>control frame</p>" }));
    await page.route("http://framer.invalid/", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<h1>Win a prize</h1><iframe name="victim" src="${origin}/actions/${id}" width="900" height="600"></iframe><iframe name="control" src="${origin}/frame-control"></iframe>`,
      }),
    );
    await page.goto("http://framer.invalid/");
    await expect(page.frameLocator('iframe[name="control"]').getByText("control frame")).toBeVisible();
    const victim = page.frame({ name: "victim" });
    expect(victim).not.toBeNull();
    await expect(victim!.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    expect(await victim!.locator("body").textContent().catch(() => "")).not.toMatch(/Decision|Countersign|Sign in/);
  });

  test("inside a same-origin frame that gets through, the decision controls are disabled", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    // An old browser, or a proxy that drops the headers: the page itself must still refuse.
    // Only the page itself: the server actions it posts to its own URL (the queue neighbours it loads) pass
    // through untouched, so none is still being fetched through the test's handler when the test ends.
    await page.route(`**/actions/${id}`, async (route) => {
      if (route.request().method() !== "GET") return route.fallback();
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-security-policy"];
      delete headers["x-frame-options"];
      await route.fulfill({ response, headers });
    });
    await page.route("**/framer-test", (route) => route.fulfill({ contentType: "text/html", body: `<iframe src="/actions/${id}" width="1200" height="800"></iframe>` }));
    await page.goto("/framer-test");
    const frame = page.frameLocator("iframe");
    await expect(frame.getByRole("alert").filter({ hasText: "Decisions are disabled inside a frame" })).toBeVisible();
    await expect(frame.getByRole("button", { name: "Approve", exact: true })).toBeDisabled();
    await expect(frame.getByRole("button", { name: "Reject", exact: true })).toBeDisabled();
    expect((await actionRow(id)).decisions).toHaveLength(0);
    await page.unrouteAll({ behavior: "wait" });
  });
});

function withMinView(seconds: number): Policy {
  const policy = structuredClone(DEFAULT_POLICY) as Policy;
  const rule = policy.tools.refund_invoice.rules.find((r) => r.id === "refund-small")!;
  return { ...policy, tools: { ...policy.tools, refund_invoice: { rules: policy.tools.refund_invoice.rules.map((r) => (r === rule ? { ...r, minViewSeconds: seconds } : r)) } } };
}

test.describe("reviewer signals", () => {
  test("a minimum view time refuses a hasty approval with a clear message", async ({ page }) => {
    const tenant = await seedTenant();
    await savePolicy(e2eDb(), { tenantId: tenant.id, baseVersion: 1, document: withMinView(120), actor: { type: "user", id: tenant.users.admin.id, label: tenant.users.admin.email } });
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await approveOnActionPage(page);
    await expect(page.getByRole("alert").filter({ hasText: "at least 120 seconds" })).toContainText("Read the arguments, then approve again.");
    const row = await actionRow(id);
    expect(row.status).toBe("pending");
    expect(row.decisions).toHaveLength(0);
  });

  test("admins and auditors see each reviewer's approval rate, latency and time on screen; reviewers do not", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
    const decision = (await actionRow(id)).decisions[0];
    expect(decision.viewedMs).not.toBeNull();
    const lonely = await addMember(other, "other-reviewer", ["reviewer"]);

    for (const email of [tenant.users.auditor.email, tenant.users.admin.email]) {
      const context = await browser.newContext();
      const viewer = await context.newPage();
      await signInAs(viewer, email);
      await viewer.goto("/audit");
      const table = viewer.getByRole("table", { name: "Reviewer signals" });
      const row = table.getByRole("row").filter({ hasText: tenant.users.reviewer.email });
      await expect(row).toContainText("100%");
      await expect(row.getByRole("cell").nth(0)).toHaveText("1");
      await expect(row.getByRole("cell").nth(2)).toHaveText(/^\d+(?:\.\d)? (?:ms|s|min)$/);
      await expect(row.getByRole("cell").nth(3)).toHaveText(/^\d+(?:\.\d)? (?:ms|s|min)$/);
      await expect(table).not.toContainText(lonely.email);
      await context.close();
    }
    await page.goto("/audit");
    await expect(page.getByRole("table", { name: "Reviewer signals" })).toHaveCount(0);
  });
});
