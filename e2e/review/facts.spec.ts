import { expect, test, type Page } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import { actionRow, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND, queueTakesKeys, approveOnActionPage } from "@/e2e/review/fixtures";

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

test.describe("state changed since request", () => {
  const PARTIAL_REFUND = { invoice_number: "INV-1044", amount_minor: 50_000, reason: "Partial return" };
  /** Someone refunds 100.00 of INV-1044 elsewhere after the request: its state changes under it. */
  const refundElsewhere = (tenant: { id: string }) =>
    e2eDb().invoice.updateMany({
      where: { tenantId: tenant.id, number: "INV-1044" }, data: { amountRefundedMinor: 10_000, version: { increment: 1 } },
    });

  test("a stale row offers no Approve: the row and the dialog offer Re-read state, which makes a revision to decide", async ({ page }) => {
    const tenant = await seedTenant();
    const stale = await propose(tenant, "refund_invoice", PARTIAL_REFUND);
    const fresh = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await refundElsewhere(tenant);

    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    const staleRow = page.locator(`[data-action-id="${stale.id}"]`);
    const freshRow = page.locator(`[data-action-id="${fresh.id}"]`);
    await expect(staleRow.getByRole("note")).toContainText("State changed since request");
    await expect(staleRow.getByRole("note")).toContainText("invoice amount refunded 0.00 → 100.00");
    await expect(staleRow.getByRole("button", { name: /^Approve/ })).toHaveCount(0);
    await expect(staleRow.getByRole("button", { name: /^Re-read state/ })).toBeVisible();
    await expect(freshRow.getByRole("button", { name: /^Approve/ })).toBeVisible();
    await expect(freshRow.getByRole("note")).toHaveCount(0);

    // The keyboard's approve opens the dialog, which shows the facts and offers no Approve either.
    await queueTakesKeys(page);
    await staleRow.click({ position: { x: 6, y: 6 } });
    await expect(staleRow).toHaveAttribute("aria-current", "true");
    await page.keyboard.press("a");
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("list", { name: "What you are deciding" })).toContainText("Refund 500.00 USD on INV-1044");
    await expect(dialog.getByRole("note")).toContainText("State changed since request");
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await dialog.getByRole("button", { name: "Re-read state" }).click();
    // The list refreshes with revision 2, which is not stale: the dialog now offers Approve on it,
    // and still says what the re-read did (the button that did it is gone).
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    await expect(dialog.getByRole("note")).toHaveCount(0);
    await expect(dialog.getByRole("status")).toContainText("Revision 2 rests on the state now");
    await expect(staleRow.getByRole("status")).toContainText("Revision 2 rests on the state now");
    expect((await actionRow(stale.id)).currentRevision).toBe(2);
    expect((await actionRow(stale.id)).status).toBe("pending");
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await expect(staleRow).toContainText("revision 2");
    await expect(staleRow.getByRole("note")).toHaveCount(0);
    await expect(staleRow.getByRole("button", { name: /^Approve/ })).toBeVisible();
  });

  test("an Approve pressed on a page opened before the state changed is refused by the server, and nothing is recorded", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", PARTIAL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    // The page's live read would take Approve away first (live.spec.ts): held back here, as on a slow network.
    await page.route("**/api/actions/*/decision-state", (route) => route.abort());
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("Unchanged since request")).toBeVisible();
    // The state changes while the page is open: the page still offers Approve, the vote refuses it.
    await refundElsewhere(tenant);
    await approveOnActionPage(page);
    const dialog = page.getByRole("dialog", { name: "Approve this action?" });
    await expect(dialog.getByRole("alert").filter({ hasText: "your approval was not recorded" })).toContainText("Re-read the state");
    // What it offers next is Re-read, not Approve again.
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Re-read state" })).toBeVisible();
    expect(await actionRow(id)).toMatchObject({ status: "pending", currentRevision: 1 });
    expect(await e2eDb().decision.count({ where: { actionId: id } })).toBe(0);
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: "decision.refused", status: "state_changed" } })).toBe(1);
  });

  test("the effect table shows At request, Now (read live) and After", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", PARTIAL_REFUND);
    await refundElsewhere(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const table = page.getByRole("table", { name: "Effect at request, now and after execution" });
    await expect(table.getByRole("columnheader")).toHaveText(["Field", "At request", "Now", "After"]);
    const refunded = table.getByRole("row").filter({ hasText: "amount_refunded_minor" });
    // After is Now plus the refund (100.00 + 500.00), with what it was at request beside it.
    await expect(refunded.getByRole("cell")).toHaveText([/amount_refunded_minor.*changed since request/, "0.00", "100.00", "600.00at request: 500.00"]);
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(page.getByTestId("decision-form").getByRole("button", { name: "Re-read state" })).toBeVisible();
    // A stale revision can still be turned down: Reject stays, and the vote records it.
    await expect(page.getByTestId("decision-form")).toContainText("you can still reject this revision");
    await page.getByLabel("Note or reason").fill("The invoice was partly refunded meanwhile");
    await page.getByRole("button", { name: "Reject", exact: true }).click();
    await expect.poll(async () => (await e2eDb().action.findUniqueOrThrow({ where: { id } })).status).toBe("rejected");
  });

  test("Re-read state on the action page makes revision 2, says so after the page refreshed, and offers Approve on it", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", PARTIAL_REFUND);
    await refundElsewhere(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await page.getByTestId("decision-form").getByRole("button", { name: "Re-read state" }).click();
    await expect(page.getByText("Unchanged since request")).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Revision 2 rests on the state now" })).toBeVisible();
    expect(await actionRow(id)).toMatchObject({ status: "pending", currentRevision: 2 });
  });
});
