import { expect, test, type Page } from "@playwright/test";
import { actionRow, propose, seedTenant, signInAs, SMALL_REFUND, type TestTenant, queueTakesKeys, approveOnActionPage } from "@/e2e/review/fixtures";

const rows = (page: Page) => page.getByRole("list", { name: "Pending actions" }).getByRole("listitem");

/**
 * The action page for `id` has rendered, not just its URL: a client-side navigation changes the
 * URL before the new page replaces the old one, and a key pressed in between acts on the old page.
 */
async function onActionPage(page: Page, id: string) {
  await expect(page).toHaveURL(new RegExp(`/actions/${id}$`));
  await expect(page.getByTestId("decision-form").locator('input[name="actionId"]')).toHaveValue(id);
}

/** Three refunds of one risk: the queue lists them in proposal order (soonest to expire first). */
async function threeRefunds(tenant: TestTenant) {
  const a = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 10_000 });
  const b = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 11_000 });
  const c = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 12_000 });
  return [a.id, b.id, c.id] as const;
}

test.describe("decide and advance", () => {
  test("on the action page, a decision opens the next undecided action; j/k walk the queue; a/r and Ctrl+Enter decide", async ({ page }) => {
    const tenant = await seedTenant();
    const [a, b, c] = await threeRefunds(tenant);
    await signInAs(page, tenant.users.reviewer.email);

    await page.goto(`/actions/${a}`);
    await approveOnActionPage(page);
    await onActionPage(page, b);
    await expect(page.getByRole("status").filter({ hasText: "Approved (1 of 1). This is the next action waiting for you." })).toBeVisible();
    expect((await actionRow(a)).status).toBe("approved");

    // j and k: next and previous waiting for me (a is decided, so b has no previous).
    await expect(page.getByLabel("Keyboard shortcuts")).toContainText("next waiting");
    // A key pressed just as the page swaps can meet the old page's handler: pressed again until it
    // lands (again is harmless: c has no next, b no previous).
    await expect(async () => {
      await page.keyboard.press("j");
      await expect(page).toHaveURL(new RegExp(`/actions/${c}$`), { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await onActionPage(page, c);
    await expect(page.getByLabel("Keyboard shortcuts")).toContainText("next waiting");
    await expect(async () => {
      await page.keyboard.press("k");
      await expect(page).toHaveURL(new RegExp(`/actions/${b}$`), { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await onActionPage(page, b);

    // r chooses reject and puts the cursor in the reason; Ctrl+Enter confirms and advances to c.
    await expect(page.getByLabel("Keyboard shortcuts")).toContainText("reject");
    await page.keyboard.press("r");
    const note = page.getByLabel("Note or reason");
    await expect(note).toBeFocused();
    await note.fill("Wrong invoice");
    await page.keyboard.press("Control+Enter");
    await onActionPage(page, c);
    expect((await actionRow(b)).status).toBe("rejected");
    expect((await actionRow(b)).decisions[0]?.note).toBe("Wrong invoice");

    // Ctrl+Enter with no verdict chosen decides nothing.
    await page.getByLabel("Note or reason").focus();
    await page.keyboard.press("Control+Enter");
    await expect(page.getByRole("alert").filter({ hasText: "Press a (approve) or r (reject) first" })).toBeVisible();
    expect((await actionRow(c)).status).toBe("pending");

    // The last one: nothing else waits, so the outcome stays on this page.
    await page.keyboard.press("Escape");
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("a");
    await page.keyboard.press("Control+Enter");
    await expect(page.getByRole("status").filter({ hasText: "Approved (1 of 1)." })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/actions/${c}$`));
    expect((await actionRow(c)).status).toBe("approved");
  });

  test("in the queue, a decision keeps the cursor's place (the next row, not row 1), focus follows, and the cursor survives a visit to an action", async ({ page }) => {
    const tenant = await seedTenant();
    const [a, b, c] = await threeRefunds(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(rows(page)).toHaveCount(3);
    await queueTakesKeys(page);
    const current = page.locator('[aria-current="true"]');
    await page.keyboard.press("j");
    await expect(current).toHaveAttribute("data-action-id", b);

    await page.keyboard.press("a");
    const dialog = page.getByRole("dialog", { name: "Approve this action?" });
    await expect(dialog.getByLabel("Note (optional)")).toBeFocused();
    // The dialog is modal: Tab never leaves it.
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null || document.activeElement === document.body)).toBe(true);
    }
    await dialog.getByLabel("Note (optional)").focus();
    await page.keyboard.press("Control+Enter");
    await expect(page.locator(`[data-action-id="${b}"]`)).toHaveCount(0);
    expect((await actionRow(b)).status).toBe("approved");
    await expect(current).toHaveAttribute("data-action-id", c);
    await expect(page.locator(`[data-action-id="${c}"] a`).first()).toBeFocused();

    // a acts on the row that has focus.
    await page.locator(`[data-action-id="${a}"] a`).first().focus();
    await page.keyboard.press("a");
    await expect(page.getByRole("dialog", { name: "Approve this action?" })).toContainText("Refund 100.00");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    // Escape gives focus back to what opened the dialog.
    await expect(page.locator(`[data-action-id="${a}"] a`).first()).toBeFocused();
    expect((await actionRow(a)).status).toBe("pending");

    await page.keyboard.press("j");
    await expect(current).toHaveAttribute("data-action-id", c);
    await page.goto(`/actions/${c}`);
    await page.goBack();
    await expect(rows(page)).toHaveCount(2);
    await queueTakesKeys(page);
    await expect(current).toHaveAttribute("data-action-id", c);
  });

  test("on a phone, the decision bar is in view without scrolling and a long email body starts collapsed", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const tenant = await seedTenant();
    const body = Array.from({ length: 200 }, (_, i) => `Line ${i + 1} of a very long message about the overdue invoice.`).join("\n");
    const { id } = await propose(tenant, "send_email", { to: "billing@initech.example", subject: "Payment reminder", body, invoice_number: "INV-1045" });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const approve = page.getByRole("button", { name: "Approve", exact: true });
    await expect(approve).toBeInViewport();
    await expect(page.getByRole("button", { name: "Reject", exact: true })).toBeInViewport();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const show = page.getByRole("button", { name: /^Show all of the arguments as plain text/ });
    await expect(show).toHaveAttribute("aria-expanded", "false");
    // Scrolled to the end, the bar still covers nothing: the page ends above it.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect(approve).toBeInViewport();
    await approve.click();
    await page.getByRole("dialog", { name: "Approve this action?" }).getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: /Your approval is recorded|Approved/ })).toBeVisible();
  });
});
