import { expect, test } from "@playwright/test";
import { actionRow, e2eDb, propose, seedTenant, signInAs } from "@/e2e/review/fixtures";

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
