import { expect, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { seedAgent } from "@/e2e/api/agent-fixtures";
import { expectNoSeriousA11yViolations } from "@/e2e/tasks/task-helpers";
import { approveOnActionPage, signInAs } from "@/e2e/review/fixtures";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { E2E_PORT } from "@/e2e/support/config";

// An email outside the customer's and the tenant's domains: the default policy sends it to review.
const report = (to: string) => ({ tool: "send_email", args: { to, subject: "Weekly report", body: "Attached." }, reason: "Weekly report" });

test.describe("standing grants", () => {
  test("a reviewer grants calls like this one from the action page; the agent's next call runs, the admin sees and revokes the grant, and the call after waits for review", async ({ page, browser, request }) => {
    test.slow();
    const agent = await seedAgent(["send_email"]);
    const { tenant } = agent;
    const first = await request.post("/api/v1/actions", { data: report("ops@partner.example"), headers: agent.headers });
    expect(first.status(), await first.text()).toBe(201);
    const { id } = (await first.json()) as { id: string };

    await signIn(page, tenant.users.reviewer.email, TEST_PASSWORD);
    await page.goto(`/actions/${id}`);
    const terms = page.getByTestId("grant-terms");
    await terms.getByText("Also approve calls like this one…").click();
    // Pre-filled from the action: the same recipient domain, in words and as CEL.
    await expect(terms.getByLabel("In words")).toHaveValue("every recipient at partner.example");
    await expect(terms.getByLabel("Constraint on the arguments (CEL)")).toHaveValue('emailDomains(args).all(d, d in ["partner.example"])');
    await terms.getByRole("checkbox").check();
    await terms.getByLabel("At most calls").fill("2");
    await expectNoSeriousA11yViolations(page);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Approve this action?" });
    await expect(dialog.getByTestId("grant-confirmation")).toContainText("at most 2 calls");
    await dialog.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "The standing grant for calls like it is in force" })).toBeVisible();
    // The action's page lists the grant made from it.
    await expect(page.getByRole("region", { name: "Standing grants" }).getByTestId("grant-row")).toContainText("0 of 2");

    // The agent's next call like it runs without review, and says how much of the grant is left.
    const granted = await request.post("/api/v1/actions", { data: report("billing@partner.example"), headers: agent.headers });
    expect(granted.status(), await granted.text()).toBe(200);
    const body = (await granted.json()) as { state: string; grant: { id: string; callsLeft: number } };
    expect(body).toMatchObject({ state: "allowed", grant: { callsLeft: 1 } });
    // Another domain is not like it.
    expect((await request.post("/api/v1/actions", { data: report("ops@elsewhere.example"), headers: agent.headers })).status()).toBe(201);

    const admin = await browser.newContext();
    const adminPage = await admin.newPage();
    await signIn(adminPage, tenant.users.admin.email, TEST_PASSWORD);
    await adminPage.goto("/admin");
    // Listed under its key too.
    await expect(adminPage.getByRole("row", { name: new RegExp(agent.name) }).getByRole("link", { name: "1 in force" })).toBeVisible();
    const row = adminPage.getByRole("region", { name: "Standing grants" }).getByTestId("grant-row");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(`key ${agent.name}`);
    await expect(row).toContainText("1 of 2");
    adminPage.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Revoke grant for send_email" }).click();
    await expect(row).toContainText("revoked");
    await admin.close();
    expect(await e2eDb().grant.findUniqueOrThrow({ where: { id: body.grant.id } })).toMatchObject({ status: "revoked", revokedById: tenant.users.admin.id });

    const after = await request.post("/api/v1/actions", { data: report("ap@partner.example"), headers: agent.headers });
    expect(after.status(), await after.text()).toBe(201);
    expect(await after.json()).toMatchObject({ state: "pending" });
  });

  test.describe("signed", () => {
    // An IP address cannot be a WebAuthn RP id: opened at the console's host name, as passkey.spec.ts does.
    test.use({ baseURL: `http://localhost:${E2E_PORT}` });

    test("where the rule requires a signed approval, the reviewer's passkey signs the grant's terms with the action", async ({ page, request }) => {
      const agent = await seedAgent(["send_email"]);
      const { tenant } = agent;
      await e2eDb().toolPolicy.create({
        data: {
          tenantId: tenant.id, version: 2,
          document: { ...DEFAULT_POLICY, version: 2, tools: { ...DEFAULT_POLICY.tools, send_email: { rules: [{ id: "send-email-signed", effect: "require_approval", signature: "required", reason: "Signed" }] } } },
        },
      });
      const first = await request.post("/api/v1/actions", { data: report("ops@partner.example"), headers: agent.headers });
      expect(first.status(), await first.text()).toBe(201);
      const { id } = (await first.json()) as { id: string };
      await signInAs(page, tenant.users.reviewer.email);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
      await page.goto("/account");
      await page.getByLabel("Passkey name").fill("Laptop");
      await page.getByRole("button", { name: "Add passkey" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Passkey “Laptop” added." })).toBeVisible();

      await page.goto(`/actions/${id}`);
      const terms = page.getByTestId("grant-terms");
      await terms.getByText("Also approve calls like this one…").click();
      await terms.getByRole("checkbox").check();
      await approveOnActionPage(page);
      await expect(page.getByRole("status").filter({ hasText: "The standing grant for calls like it is in force" })).toBeVisible();
      const grant = await e2eDb().grant.findFirstOrThrow({ where: { sourceActionId: id } });
      expect(grant).toMatchObject({ signed: true, maxCalls: 10 });
      const signature = await e2eDb().decisionSignature.findFirstOrThrow({ where: { decision: { actionId: id } } });
      expect(JSON.parse(signature.receipt)).toMatchObject({ action: id, grant: grant.termsHash });

      const granted = await request.post("/api/v1/actions", { data: report("billing@partner.example"), headers: agent.headers });
      expect(await granted.json()).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: 9 } });
    });
  });
});
