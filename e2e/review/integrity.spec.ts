import { expect, test } from "@playwright/test";
import { executeAction } from "@/lib/approvals/execute-action";
import { actionRow, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND, approveOnActionPage } from "@/e2e/review/fixtures";

const approve = (page: import("@playwright/test").Page) => page.getByRole("button", { name: "Approve", exact: true });
const system = { type: "system" as const, id: null, label: "e2e" };

test.describe("what the decision rests on", () => {
  test("a snapshot change after the approval shows the warning, and execution is refused with a fresh revision queued", async ({ page }) => {
    const tenant = await seedTenant();
    // 200.00 of the 450.00 paid on INV-1043: still refundable after the 50.00 refunded elsewhere below.
    const { id } = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 20_000 });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("Unchanged since request")).toBeVisible();
    await expect(page.getByText("Changed since request", { exact: true })).toHaveCount(0);
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();

    // Someone refunds part of the invoice elsewhere while the approval waits to run.
    await e2eDb().invoice.update({
      where: { tenantId_number: { tenantId: tenant.id, number: "INV-1043" } },
      data: { amountRefundedMinor: 5_000, version: { increment: 1 } },
    });
    await page.reload();
    const warning = page.getByRole("alert").filter({ hasText: "Changed since request" });
    await expect(warning).toBeVisible();
    await expect(warning.getByRole("row").filter({ hasText: "amount_refunded_minor" })).toContainText("50.00");

    const approved = await actionRow(id);
    await expect(executeAction(e2eDb(), { tenantId: tenant.id, actionId: id, payloadHash: approved.payloadHash, executor: { type: "requester" }, actor: system })).rejects.toMatchObject({ code: "state_changed" });
    expect(await e2eDb().refund.count({ where: { tenantId: tenant.id } })).toBe(0);

    await page.reload();
    await expect(page.getByText("revision 2", { exact: true })).toBeVisible();
    await expect(page.getByRole("main").getByText("pending", { exact: true }).first()).toBeVisible();
    const why = page.getByRole("region", { name: "Why revision 2 exists: the state changed" });
    await expect(why.getByRole("row").filter({ hasText: "snapshot.invoice.amount_refunded_minor" })).toContainText("50.00");
    await expect(page.getByText("void — revision superseded")).toBeVisible();
    await expect(approve(page)).toBeVisible(); // the fresh revision needs its own decision
  });

  test("an edit creates a revision with a visible diff, and the old approval cannot execute it", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
    const firstHash = (await actionRow(id)).payloadHash;

    const editor = await browser.newPage();
    await signInAs(editor, tenant.users.reviewer2.email);
    await editor.goto(`/actions/${id}`);
    await editor.getByRole("button", { name: "Edit" }).click();
    const field = editor.getByLabel("Arguments (JSON)");
    await field.fill('{ "invoice_number": "INV-1043", "amount_minor": "lots", "reason": "Partial return" }');
    await editor.getByRole("button", { name: "Save as new revision" }).click();
    await expect(editor.getByRole("main").getByRole("alert")).toContainText("amount_minor");
    await field.fill('{ "invoice_number": "INV-1043", "amount_minor": 20000, "reason": "Partial return" }');
    await editor.getByRole("button", { name: "Save as new revision" }).click();
    await expect(editor.getByRole("status").filter({ hasText: "Revision 2 created" })).toBeVisible();
    const diff = editor.getByRole("region", { name: "Changes from revision 1" });
    await expect(diff.getByRole("row").filter({ hasText: "amount_minor" })).toContainText("450.00");
    await expect(diff.getByRole("row").filter({ hasText: "amount_minor" })).toContainText("200.00");
    await expect(diff.getByRole("row").filter({ hasText: "reason" })).toContainText("Partial return");
    // The editor may not approve their own revision.
    await expect(editor.getByText("You wrote this revision")).toBeVisible();
    await editor.close();

    const edited = await actionRow(id);
    expect(edited.status).toBe("pending");
    expect(edited.currentRevision).toBe(2);
    await expect(executeAction(e2eDb(), { tenantId: tenant.id, actionId: id, payloadHash: firstHash, executor: { type: "requester" }, actor: system })).rejects.toMatchObject({ code: expect.stringMatching(/hash_mismatch|not_executable/) });
    expect(await e2eDb().refund.count({ where: { tenantId: tenant.id } })).toBe(0);
    await page.reload();
    await expect(page.getByText("void — revision superseded")).toBeVisible();
  });

  test("a decision posted with a hash that is no longer current is refused and nothing is approved", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    // The page's live read would take Approve away first (live.spec.ts); held back, the server refuses.
    await page.route("**/api/actions/*/decision-state", (route) => route.abort());
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(approve(page)).toBeVisible();

    const editor = await browser.newPage();
    await signInAs(editor, tenant.users.reviewer2.email);
    await editor.goto(`/actions/${id}`);
    await editor.getByRole("button", { name: "Edit" }).click();
    await editor.getByLabel("Arguments (JSON)").fill('{ "invoice_number": "INV-1043", "amount_minor": 100, "reason": "Only the shipping fee" }');
    await editor.getByRole("button", { name: "Save as new revision" }).click();
    await expect(editor.getByRole("status").filter({ hasText: "Revision 2 created" })).toBeVisible();
    await editor.close();

    await approveOnActionPage(page);
    await expect(page.getByRole("alert").filter({ hasText: "changed since you opened it" })).toBeVisible();
    const row = await actionRow(id);
    expect(row.status).toBe("pending");
    expect(row.decisions).toHaveLength(0);
  });

  test("arguments that look like HTML or markdown are shown as plain text", async ({ page }) => {
    const tenant = await seedTenant();
    const body = "Hello <img src=x onerror=alert(1)> and **bold** <script>alert(2)</script>";
    const { id } = await propose(tenant, "send_email", {
      to: "billing@initech.example", subject: "Reminder <b>now</b>", body, invoice_number: "INV-1045",
    });
    let dialogs = 0;
    page.on("dialog", (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const args = page.getByLabel("Arguments as plain text");
    await expect(args).toContainText("<img src=x onerror=alert(1)>");
    await expect(args).toContainText("**bold**");
    await expect(args).toContainText("Reminder <b>now</b>");
    await expect(page.locator("main img")).toHaveCount(0);
    await expect(page.locator("main b, main strong").filter({ hasText: /^(now|bold)$/ })).toHaveCount(0);
    expect(dialogs).toBe(0);
  });
});
