import { expect, test, type Page } from "@playwright/test";
import { decideAction } from "@/lib/approvals/decide-action";
import { actionRow, e2eDb, propose, seedTenant, signInAs, type TestTenant } from "@/e2e/review/fixtures";

const REMINDER = { to: "ap@initech.example", subject: "Payment reminder: INV-1045", body: "780.00 USD outstanding", invoice_number: "INV-1045" };

test.describe("the state a reminder rests on covers the invoice it names", () => {
  test("after the invoice is cancelled the reminder shows the change, offers Re-read not Approve, and the re-read is blocked", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "send_email", REMINDER);
    // "Cancel invoice INV-1045" ran after the reminder was requested.
    await e2eDb().invoice.updateMany({
      where: { tenantId: tenant.id, number: "INV-1045" }, data: { status: "cancelled", amountDueMinor: 0, version: { increment: 1 } },
    });

    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(page.getByTestId("state-changes")).toHaveText("changed: invoice status open → cancelled; invoice amount due 780.00 → 0.00");
    await expect(page.getByText("Unchanged since request")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);

    await page.getByRole("button", { name: "Re-read state" }).click();
    const blocked = page.getByRole("region", { name: "Blocked: the arguments do not fit the state they rest on" });
    await expect(blocked).toContainText("the invoice is cancelled");
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    expect(await actionRow(id)).toMatchObject({ status: "denied", currentRevision: 2 });
    expect(await e2eDb().emailOutbox.count({ where: { tenantId: tenant.id } })).toBe(0);
  });
});

test.describe("a vote rests on fields, not on the row's version", () => {
  /** 2,000.00 of INV-1044: two reviewers must approve. */
  const REFUND = { invoice_number: "INV-1044", amount_minor: 200_000, reason: "Partial return" };
  const approve = (page: Page) => page.getByRole("button", { name: "Approve", exact: true });

  /** The refund with the first reviewer's approval in; the second reviewer opens it. */
  async function halfApproved(page: Page, change: (tenant: TestTenant) => Promise<unknown>) {
    const tenant = await seedTenant();
    const { id, payloadHash } = await propose(tenant, "refund_invoice", REFUND);
    await decideAction(e2eDb(), { tenantId: tenant.id, actionId: id, verdict: "approve", payloadHash, reviewer: tenant.users.reviewer.member });
    await change(tenant);
    await signInAs(page, tenant.users.reviewer2.email);
    await page.goto(`/actions/${id}`);
    return id;
  }

  test("an unrelated update (the due date, the customer's note) leaves the first vote counted", async ({ page }) => {
    const id = await halfApproved(page, async (tenant) => {
      await e2eDb().invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1044" }, data: { dueDate: new Date("2030-01-31"), version: { increment: 1 } } });
      await e2eDb().customer.updateMany({ where: { tenantId: tenant.id, externalRef: "CUST-001" }, data: { notes: "Moved office.", version: { increment: 1 } } });
    });
    await expect(page.getByText("Unchanged since request")).toBeVisible();
    await expect(page.getByText("1 of 2")).toBeVisible();
    await approve(page).click();
    await expect(page.getByRole("status").filter({ hasText: "Approved (2 of 2)" })).toBeVisible();
    expect((await actionRow(id)).status).toBe("approved");
  });

  test("a change to the refunded amount voids it: the page names the field and offers no Approve", async ({ page }) => {
    const id = await halfApproved(page, (tenant) =>
      e2eDb().invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1044" }, data: { amountRefundedMinor: { increment: 1_000 }, version: { increment: 1 } } }));
    await expect(page.getByTestId("state-changes")).toHaveText("changed: invoice amount refunded 0.00 → 10.00");
    await expect(approve(page)).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Re-read state" })).toBeVisible();
    expect((await actionRow(id)).status).toBe("pending");
  });
});
