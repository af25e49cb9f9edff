import { expect, test, type Page } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import { actionRow, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND } from "@/e2e/review/fixtures";

const pendingRows = (page: Page) => page.getByRole("list", { name: "Pending actions" }).getByRole("listitem");

test.describe("arguments checked against the state they rest on", () => {
  test("an over-refund is blocked with a finding before any reviewer is asked", async ({ page }) => {
    const tenant = await seedTenant();
    // INV-1043 was paid 450.00; the agent asks to refund 1,500.00.
    const outcome = await proposeAction(e2eDb(), {
      tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1043", amount_minor: 150_000, reason: "Customer returned everything" },
    });
    expect(outcome.state).toBe("denied");
    const fine = await propose(tenant, "refund_invoice", SMALL_REFUND);

    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(pendingRows(page)).toHaveCount(1);
    await expect(page.locator(`[data-action-id="${fine.id}"]`)).toBeVisible();
    await expect(page.locator(`[data-action-id="${outcome.actionId}"]`)).toHaveCount(0);

    await page.goto(`/actions/${outcome.actionId}`);
    const blocked = page.getByRole("region", { name: "Blocked: the arguments do not fit the state they rest on" });
    await expect(blocked).toContainText("state.refund-exceeds-refundable");
    await expect(blocked).toContainText("A refund of 1,500.00 USD is more than the 450.00 USD refundable on INV-1043");
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  });

  test("a reviewer's edit that raises a refund past what was paid is blocked with the finding", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Arguments (JSON)").fill('{ "invoice_number": "INV-1043", "amount_minor": 150000, "reason": "Customer returned everything" }');
    await page.getByRole("button", { name: "Save as new revision" }).click();
    const blocked = page.getByRole("region", { name: "Blocked: the arguments do not fit the state they rest on" });
    await expect(blocked).toContainText("more than the 450.00 USD refundable");
    expect((await actionRow(id)).status).toBe("denied");
    expect(await e2eDb().refund.count({ where: { tenantId: tenant.id } })).toBe(0);
  });
});
