import { expect, test, type Page } from "@playwright/test";
import { actionRow, e2eDb, LARGE_REFUND, propose, seedTenant, signInAs, SMALL_REFUND, type TestTenant, queueTakesKeys, approveOnActionPage } from "@/e2e/review/fixtures";

const rows = (page: Page) => page.getByRole("list", { name: "Pending actions" }).getByRole("listitem");
const email = { to: "billing@initech.example", subject: "Payment reminder", body: "Your invoice is overdue.", invoice_number: "INV-1045" };

/** Low-risk actions of one step: the default policy rates no pending tool low, so the fixture lowers the rating in the database. */
async function lowRisk(tenant: TestTenant, stepKey: string, amount: number) {
  const action = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: amount }, { stepKey });
  await e2eDb().action.update({ where: { id: action.id }, data: { riskLevel: "low", riskRank: 0 } });
  return action;
}

test.describe("the review queue", () => {
  test("lists what I may decide, riskiest then soonest-expiring first, with votes and time left", async ({ page }) => {
    const tenant = await seedTenant();
    const large = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await propose(tenant, "refund_invoice", SMALL_REFUND);
    await propose(tenant, "send_email", email);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(rows(page)).toHaveCount(3);
    const expected = await e2eDb().action.findMany({
      where: { tenantId: tenant.id, status: "pending" }, orderBy: [{ riskRank: "desc" }, { expiresAt: "asc" }], select: { id: true },
    });
    const shown = await rows(page).evaluateAll((items) => items.map((li) => li.getAttribute("data-action-id")));
    expect(shown).toEqual(expected.map((a) => a.id));
    const largeRow = page.locator(`[data-action-id="${large.id}"]`);
    await expect(largeRow).toContainText("0 of 2 approvals");
    await expect(largeRow).toContainText(/left/);
    await expect(largeRow).toContainText(tenant.users.requester.email);
    await expect(largeRow).toContainText("Refund");
    await expect(page.getByText("j", { exact: true })).toBeVisible();
  });

  test("shows my vote, and new actions appear without a reload", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const large = await propose(tenant, "refund_invoice", LARGE_REFUND);
    const other = await browser.newPage();
    await signInAs(other, tenant.users.reviewer.email);
    await other.goto(`/actions/${large.id}`);
    await approveOnActionPage(other);
    await expect(other.getByRole("status").filter({ hasText: "1 of 2" })).toBeVisible();
    await other.close();

    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    const row = page.locator(`[data-action-id="${large.id}"]`);
    await expect(row).toContainText("1 of 2 approvals");
    await expect(row).toContainText("You approved");
    await expect(row.getByRole("button", { name: /^Approve/ })).toHaveCount(0);

    const fresh = await propose(tenant, "send_email", email);
    await expect(page.locator(`[data-action-id="${fresh.id}"]`)).toBeVisible({ timeout: 20_000 });
  });

  test("keyboard: j/k move, Enter opens, a approves after a confirmation, r focuses the reason", async ({ page }) => {
    const tenant = await seedTenant();
    await propose(tenant, "refund_invoice", LARGE_REFUND);
    await propose(tenant, "send_email", email);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(rows(page)).toHaveCount(2);
    await queueTakesKeys(page);
    const [first, second] = await rows(page).evaluateAll((items) => items.map((li) => li.getAttribute("data-action-id") ?? ""));
    const current = page.locator('[aria-current="true"]');
    await expect(current).toHaveAttribute("data-action-id", first);
    await page.keyboard.press("j");
    await expect(current).toHaveAttribute("data-action-id", second);
    await page.keyboard.press("k");
    await expect(current).toHaveAttribute("data-action-id", first);
    await page.keyboard.press("j");

    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Reject this action?" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel(/Reason/)).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);

    await page.keyboard.press("a");
    const confirm = page.getByRole("dialog", { name: "Approve this action?" });
    await expect(confirm).toContainText("send_email");
    await confirm.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "send_email is approved" })).toBeVisible();
    expect((await actionRow(second)).status).toBe("approved");
    await expect(page.locator(`[data-action-id="${second}"]`)).toHaveCount(0);

    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/actions/${first}$`));
    await page.goBack();
    await queueTakesKeys(page);
    await page.keyboard.press("o");
    await expect(page).toHaveURL(new RegExp(`/actions/${first}$`));
  });

  test("bulk decisions are offered only for low-risk actions of one step, and the server re-checks each", async ({ page }) => {
    const tenant = await seedTenant();
    const a = await lowRisk(tenant, "step-a", 1_000);
    const b = await lowRisk(tenant, "step-a", 2_000);
    const otherStep = await lowRisk(tenant, "step-b", 3_000);
    const risky = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 4_000 }, { stepKey: "step-a" });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    const box = (id: string) => page.locator(`[data-action-id="${id}"]`).getByRole("checkbox");
    await expect(box(risky.id)).toHaveCount(0);

    await box(a.id).check();
    await box(otherStep.id).check();
    await expect(page.getByText("Only actions from one step of one task can be decided together.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve selected" })).toBeDisabled();
    await box(otherStep.id).uncheck();
    await box(b.id).check();
    await expect(page.getByRole("button", { name: "Approve selected" })).toBeEnabled();

    // The server does not take the browser's word for "low risk".
    await page.getByRole("button", { name: "Approve selected" }).click();
    const dialog = page.getByRole("dialog", { name: "Approve these 2 actions?" });
    await expect(dialog.getByRole("list", { name: "Actions to decide" }).getByRole("listitem")).toHaveCount(2);
    await expect(dialog).toContainText("10.00");
    await expect(dialog).toContainText("20.00");
    await e2eDb().action.update({ where: { id: b.id }, data: { riskLevel: "high", riskRank: 2 } });
    await dialog.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(dialog.getByRole("alert")).toContainText("Only low-risk actions can be decided together");
    expect((await actionRow(a.id)).status).toBe("pending");
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await e2eDb().action.update({ where: { id: b.id }, data: { riskLevel: "low", riskRank: 0 } });
    await page.getByRole("button", { name: "Approve selected" }).click();
    await page.getByRole("dialog", { name: "Approve these 2 actions?" }).getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "All 2 decided." })).toBeVisible();
    expect((await actionRow(a.id)).status).toBe("approved");
    expect((await actionRow(b.id)).status).toBe("approved");
    expect((await actionRow(otherStep.id)).status).toBe("pending");
  });

  test("an empty queue says what to do", async ({ page }) => {
    const tenant = await seedTenant();
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(page.getByText("Nothing waits for your decision")).toBeVisible();
    await expect(page.getByText(/appears here within seconds/)).toBeVisible();
  });
});
