import { expect, test, type Page } from "@playwright/test";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import {
  actionRow, approveOnActionPage, decisionForm, e2eDb, LARGE_REFUND, propose, queueTakesKeys, seedTenant, signInAs, SMALL_REFUND, type TestTenant,
} from "@/e2e/review/fixtures";

/** 450.00 of INV-1044 (12,000.00 paid, nothing refunded at request). */
const REFUND = { invoice_number: "INV-1044", amount_minor: 45_000, reason: "Partial return" };

/** Someone refunds `minor` of INV-1044 elsewhere while the reviewer looks: the state under the action changes. */
const refundElsewhere = (tenant: TestTenant, minor: number) =>
  e2eDb().invoice.updateMany({ where: { tenantId: tenant.id, number: "INV-1044" }, data: { amountRefundedMinor: minor, version: { increment: 1 } } });

const approveDialog = (page: Page) => page.getByRole("dialog", { name: "Approve this action?" });
/** The page's live reads of the decision state, held back (as on a slow network). */
const holdLiveReads = (page: Page) => page.route("**/api/actions/*/decision-state", (route) => route.abort());

test.describe("one After: computed from Now", () => {
  test("a 450.00 refund with 2.00 refunded since shows Now 2.00 and After 452.00, with the request's 450.00 beside it", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", REFUND);
    await refundElsewhere(tenant, 200);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const refunded = page.getByRole("table", { name: "Effect at request, now and after execution" }).getByRole("row").filter({ hasText: "amount_refunded_minor" });
    await expect(refunded.getByRole("cell")).toHaveText([/amount_refunded_minor/, "0.00", "2.00", "452.00at request: 450.00"]);
  });
});

test.describe("a live decision surface", () => {
  test("the queue's open dialog swaps Approve for Re-read state the moment the state changes, and says what changed", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    const row = page.locator(`[data-action-id="${id}"]`);
    await row.getByRole("button", { name: /^Approve/ }).click();
    const dialog = approveDialog(page);
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toBeVisible();

    await refundElsewhere(tenant, 10_000);
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Re-read state" })).toBeVisible();
    await expect(dialog.getByRole("note").filter({ hasText: "State changed since request" })).toContainText("invoice amount refunded 0.00 → 100.00");
    // Ctrl+Enter approves nothing either.
    await dialog.getByLabel("Note (optional)").focus();
    await page.keyboard.press("Control+Enter");
    expect(await e2eDb().decision.count({ where: { actionId: id } })).toBe(0);

    await dialog.getByRole("button", { name: "Re-read state" }).click();
    await expect(dialog.getByRole("status")).toContainText("Revision 2 rests on the state now");
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    expect(await actionRow(id)).toMatchObject({ status: "pending", currentRevision: 2 });
  });

  test("after the vote refuses a stale approval, the queue's dialog offers Re-read, not Approve again", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", REFUND);
    await holdLiveReads(page);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await page.locator(`[data-action-id="${id}"]`).getByRole("button", { name: /^Approve/ }).click();
    const dialog = approveDialog(page);
    await refundElsewhere(tenant, 10_000);
    await dialog.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(dialog.getByRole("alert")).toContainText("your approval was not recorded");
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Re-read state" })).toBeVisible();
    expect(await e2eDb().decision.count({ where: { actionId: id } })).toBe(0);
  });

  test("the action page swaps Approve for Re-read state while open, in the form and in an open confirmation", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await decisionForm(page).getByRole("button", { name: "Approve", exact: true }).click();
    const dialog = approveDialog(page);
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toBeVisible();

    await refundElsewhere(tenant, 10_000);
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Re-read state" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(decisionForm(page).getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(decisionForm(page).getByRole("button", { name: "Re-read state" })).toBeVisible();
    // The page behind caught up without a reload.
    await expect(page.getByText("Changed since request").first()).toBeVisible();
    expect(await e2eDb().decision.count({ where: { actionId: id } })).toBe(0);
  });
});

test.describe("one confirmation behaviour", () => {
  test("Approve on the action page asks for the same confirmation as the queue: Cancel records nothing, confirming records the vote", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await page.getByLabel("Note or reason").fill("Checked the return slip");
    await decisionForm(page).getByRole("button", { name: "Approve", exact: true }).click();
    const dialog = approveDialog(page);
    await expect(dialog.getByRole("list", { name: "Actions to decide" })).toContainText("Refund 450.00 USD on INV-1043");
    await expect(dialog.getByLabel("Note (optional)")).toHaveValue("Checked the return slip");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    expect(await actionRow(id)).toMatchObject({ status: "pending", decisions: [] });

    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved (1 of 1)" })).toBeVisible();
    expect((await actionRow(id)).decisions[0]?.note).toBe("Checked the return slip");
  });

  test("a passkey requirement shows in the queue's dialog before anything is confirmed, with the action page linked", async ({ page }) => {
    const tenant = await seedTenant();
    await e2eDb().toolPolicy.create({
      data: { tenantId: tenant.id, version: 2, document: { ...DEFAULT_POLICY, version: 2, defaults: { ...DEFAULT_POLICY.defaults, signatureAtRisk: "high" } } },
    });
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await page.locator(`[data-action-id="${id}"]`).getByRole("button", { name: /^Approve/ }).click();
    const dialog = approveDialog(page);
    await expect(dialog.getByRole("note").filter({ hasText: "requires approving this action with your passkey" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    const link = dialog.getByRole("link", { name: "Open the action page to approve with your passkey" });
    await expect(link).toHaveAttribute("href", `/actions/${id}#decide`);
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/actions/${id}#decide$`));
    await expect(page.getByText("The policy requires a signed approval")).toBeVisible();
  });
});

test.describe("the review page reads as every other place does", () => {
  test("arguments and state show money in major units; Risk tags (N) counts the findings listed", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(page.getByLabel("Arguments as plain text")).toContainText('"amount_minor": 45000, // 450.00');
    await expect(page.getByLabel("Snapshot at request")).toContainText(/"amount_paid_minor": 1200000,? \/\/ 12,000\.00/);
    const heading = page.getByRole("heading", { name: /^Risk tags \(\d+\)$/ });
    const count = Number((await heading.textContent())?.match(/\((\d+)\)/)?.[1]);
    await expect(page.getByRole("region", { name: /^Risk tags/ }).getByRole("listitem")).toHaveCount(count);
  });

  test("focus goes back to the row when the queue's dialog closes, also when a key opened it", async ({ page }) => {
    const tenant = await seedTenant();
    await propose(tenant, "refund_invoice", SMALL_REFUND);
    const second = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 10_000 });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await queueTakesKeys(page);
    await page.keyboard.press("j");
    await expect(page.locator('[aria-current="true"]')).toHaveAttribute("data-action-id", second.id);
    await page.keyboard.press("a");
    await expect(approveDialog(page)).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(approveDialog(page)).toHaveCount(0);
    await expect(page.locator(`[data-action-id="${second.id}"] a`).first()).toBeFocused();
  });
});
