import { expect, test, type Page } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { decide, expectNoSeriousA11yViolations, pendingAction, startTaskInUi } from "@/e2e/tasks/task-helpers";

const finalAnswer = (page: Page) => page.getByRole("region", { name: "Final answer" });
const timeline = (page: Page) => page.getByRole("list", { name: "Timeline" });

test.describe("a requester runs each demo scenario and sees the outcome", () => {
  test("payment reminder: approved, sent, answered — and the run is labelled offline", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Send a payment reminder for INV-1042");
    await expect(page.getByText("Offline planner")).toBeVisible();
    const email = await pendingAction(taskId, "send_email");
    await expect(timeline(page)).toContainText("waiting for approval: 0 of 1");
    await expect(page.getByRole("link", { name: "Open action send_email" })).toHaveAttribute("href", `/actions/${email.id}`);
    await decide(tenant, email, tenant.users.reviewer, "approve", "Customer agreed to reminders");
    // No reload: the page refreshes itself while the task is active.
    await expect(finalAnswer(page)).toContainText("INV-1042", { timeout: 30_000 });
    await expect(timeline(page)).toContainText(`Approved by ${tenant.users.reviewer.email}`);
    await expect(timeline(page)).toContainText("Customer agreed to reminders");
    await expect(page.getByText("completed").first()).toBeVisible();
    // My tasks lists it, labelled.
    await page.goto("/tasks");
    const row = page.getByTestId("task-row").filter({ hasText: "INV-1042" });
    await expect(row).toContainText("completed");
    await expect(row).toContainText("Offline planner");
  });

  test("cancel: a rejection's reason reaches the requester", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Cancel invoice INV-1045");
    const cancel = await pendingAction(taskId, "cancel_invoice");
    await decide(tenant, cancel, tenant.users.reviewer, "reject", "The customer is negotiating; do not cancel");
    await expect(finalAnswer(page)).toContainText("negotiating", { timeout: 30_000 });
    await expect(timeline(page)).toContainText(`Rejected by ${tenant.users.reviewer.email}`);
    await expect(timeline(page)).toContainText("Rejected by a reviewer — not executed");
    expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: tenant.id, number: "INV-1045" } })).status).toBe("open");
  });

  test("small refund: one approval, executed", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Refund 450.00 on INV-1043");
    const refund = await pendingAction(taskId, "refund_invoice");
    await decide(tenant, refund, tenant.users.reviewer, "approve");
    await expect(finalAnswer(page)).toBeVisible({ timeout: 30_000 });
    await expect(timeline(page)).toContainText("succeeded");
    expect(await e2eDb().refund.count({ where: { tenantId: tenant.id, amountMinor: 45_000 } })).toBe(1);
  });

  test("large refund: the timeline shows 1 of 2 until a second reviewer approves", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Refund $12,000 on INV-1044");
    const refund = await pendingAction(taskId, "refund_invoice");
    await decide(tenant, refund, tenant.users.reviewer, "approve");
    await expect(timeline(page)).toContainText("waiting for approval: 1 of 2", { timeout: 15_000 });
    await decide(tenant, refund, tenant.users.reviewer2, "approve");
    await expect(finalAnswer(page)).toBeVisible({ timeout: 30_000 });
    await expect(timeline(page)).toContainText(`Approved by ${tenant.users.reviewer.email}`);
    await expect(timeline(page)).toContainText(`Approved by ${tenant.users.reviewer2.email}`);
  });

  test("prompt injection: the exfiltration email is rejected, the real reminder goes out", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Send a payment reminder for INV-1046");
    const exfil = await pendingAction(taskId, "send_email");
    await expect(timeline(page)).toContainText("audit-desk@exfil-mail.example");
    await decide(tenant, exfil, tenant.users.reviewer, "reject", "Prompt injection from the customer notes");
    const legit = await pendingAction(taskId, "send_email");
    expect(legit.id).not.toBe(exfil.id);
    await decide(tenant, legit, tenant.users.reviewer, "approve");
    await expect(finalAnswer(page)).toBeVisible({ timeout: 30_000 });
    await expect(timeline(page)).toContainText("Prompt injection from the customer notes");
    expect(await e2eDb().emailOutbox.count({ where: { tenantId: tenant.id, toAddress: "audit-desk@exfil-mail.example" } })).toBe(0);
  });

  test("python analysis: approved code runs in the sandbox; its output is in the timeline", async ({ page }) => {
    test.setTimeout(120_000);
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Run a Python analysis of the storage-buckets dataset and list stale buckets");
    const code = await pendingAction(taskId, "run_python");
    await decide(tenant, code, tenant.users.reviewer, "approve");
    await expect(page.getByRole("region", { name: /Final answer|Run error/ })).toBeVisible({ timeout: 90_000 });
    const execution = await e2eDb().execution.findFirstOrThrow({ where: { actionId: code.id } });
    await expect(timeline(page)).toContainText("stdout");
    if (execution.status === "succeeded") {
      await expect(finalAnswer(page)).toContainText("legacy-backups-eu");
      await expect(timeline(page)).toContainText(`isolation: ${execution.isolation}`);
    }
  });

  test("expiry is reported as expired, not as a rejection", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Cancel invoice INV-1047");
    const cancel = await pendingAction(taskId, "cancel_invoice");
    await e2eDb().$executeRaw`UPDATE "Action" SET "expiresAt" = now() - interval '1 second' WHERE id = ${cancel.id}::uuid`;
    await expect(finalAnswer(page)).toContainText(/expired/i, { timeout: 30_000 });
    await expect(timeline(page)).toContainText("Expired before anyone decided — not executed");
    await expect(finalAnswer(page)).not.toContainText(/rejected/i);
  });
});

test.describe("the tasks pages", () => {
  test("an instruction that is too short gets an error in words and starts nothing", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    await page.goto("/tasks");
    await expect(page.getByText("No tasks yet")).toBeVisible();
    await page.getByLabel("Task instruction").fill("  x ");
    await page.getByRole("button", { name: "Start task" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Describe the task" })).toBeVisible();
    expect(await e2eDb().task.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  test("model and tool text is shown as text, never as HTML", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    await startTaskInUi(page, `<img src=x onerror="document.title='pwned'"><b>bold</b> reminder for INV-1042`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("<b>bold</b>");
    await expect(page.locator("main img")).toHaveCount(0);
    await expect(page.locator("main b")).toHaveCount(0);
    expect(await page.title()).not.toBe("pwned");
  });

  test("another requester's task is not found, and other roles cannot open tasks", async ({ page }) => {
    const tenant = await seedTenant();
    const other = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Send a payment reminder for INV-1042");
    await page.context().clearCookies();
    await signIn(page, other.users.requester.email, TEST_PASSWORD);
    expect((await page.goto(`/tasks/${taskId}`))?.status()).toBe(404);
    await page.context().clearCookies();
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    expect((await page.goto(`/tasks/${taskId}`))?.status()).toBe(403);
  });

  test("accessibility: /tasks and /tasks/[id] have no serious violations", async ({ page }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    const taskId = await startTaskInUi(page, "Send a payment reminder for INV-1042");
    await pendingAction(taskId, "send_email");
    await page.reload();
    await expect(timeline(page)).toContainText("send_email");
    await expectNoSeriousA11yViolations(page);
    await page.goto("/tasks");
    await expectNoSeriousA11yViolations(page);
  });
});
