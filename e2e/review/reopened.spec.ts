import { expect, test, type Locator, type Page } from "@playwright/test";
import { decideAction } from "@/lib/approvals/decide-action";
import { e2eDb, propose, seedTenant, signInAs, SMALL_REFUND } from "@/e2e/review/fixtures";

/** On the admin page, as an admin: the member keeps requester and loses reviewer. Returns their roles form. */
async function removeReviewerRole(page: Page, email: string): Promise<Locator> {
  await page.goto("/admin");
  const roles = page.getByRole("form", { name: `Roles of ${email}` });
  await roles.getByRole("checkbox", { name: "requester" }).check();
  await roles.getByRole("checkbox", { name: "reviewer" }).uncheck();
  await roles.getByRole("button", { name: /Save roles/ }).click();
  return roles;
}

test.describe("approvals that stop counting", () => {
  test("an admin removes a reviewer's role: the action they approved goes back to the queue, and its page says their vote no longer counts", async ({ page }) => {
    const tenant = await seedTenant();
    const action = await propose(tenant, "refund_invoice", SMALL_REFUND);
    const decided = await decideAction(e2eDb(), {
      tenantId: tenant.id, actionId: action.id, verdict: "approve", payloadHash: action.payloadHash, reviewer: tenant.users.reviewer.member,
    });
    expect(decided.status).toBe("approved");

    await signInAs(page, tenant.users.admin.email);
    await removeReviewerRole(page, tenant.users.reviewer.email);
    await expect.poll(async () => (await e2eDb().action.findUniqueOrThrow({ where: { id: action.id } })).status).toBe("pending");

    await page.context().clearCookies();
    await signInAs(page, tenant.users.reviewer2.email);
    await page.goto("/queue");
    const row = page.locator(`[data-action-id="${action.id}"]`);
    await expect(row).toContainText("0 of 1 approval");
    await page.goto(`/actions/${action.id}`);
    await expect(page.getByRole("note").filter({ hasText: "Back in review: an approval of this revision no longer counts" })).toContainText("so it needs 1 more");
    await expect(page.getByText(/no longer counts — the reviewer may not decide it now/)).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  });

  test("the admin gives the role back: the action the reviewer approved is approved again, and its page says why", async ({ page }) => {
    const tenant = await seedTenant();
    const action = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await decideAction(e2eDb(), {
      tenantId: tenant.id, actionId: action.id, verdict: "approve", payloadHash: action.payloadHash, reviewer: tenant.users.reviewer.member,
    });
    await signInAs(page, tenant.users.admin.email);
    const roles = await removeReviewerRole(page, tenant.users.reviewer.email);
    await expect.poll(async () => (await e2eDb().action.findUniqueOrThrow({ where: { id: action.id } })).status).toBe("pending");

    await page.goto("/admin");
    await roles.getByRole("checkbox", { name: "reviewer" }).check();
    await roles.getByRole("button", { name: /Save roles/ }).click();
    await expect.poll(async () => (await e2eDb().action.findUniqueOrThrow({ where: { id: action.id } })).status).toBe("approved");
    await page.goto(`/actions/${action.id}`);
    await expect(page.getByText(/Approved: .*reviewer roles were given back, so their approval counts again/)).toBeVisible();
  });
});
