import { test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { decide, pendingAction, startTaskInDb, taskStatus } from "@/e2e/tasks/task-helpers";

// Not an assertion suite: saves screenshots of each page for a person to look at (SCREENSHOTS=1).
test.skip(!process.env.SCREENSHOTS, "set SCREENSHOTS=1 to save page screenshots to /tmp");

test("screenshots of tasks, a timeline, audit and admin", async ({ page }) => {
  test.setTimeout(120_000);
  const tenant = await seedTenant();
  const a = await startTaskInDb(tenant, "Send a payment reminder for INV-1046");
  const b = await startTaskInDb(tenant, "Refund $12,000 on INV-1044");
  const exfil = await pendingAction(a, "send_email");
  await decide(tenant, exfil, tenant.users.reviewer, "reject", "Prompt injection from the customer notes");
  const legit = await pendingAction(a, "send_email");
  await decide(tenant, legit, tenant.users.reviewer2, "approve");
  const refund = await pendingAction(b, "refund_invoice");
  await decide(tenant, refund, tenant.users.reviewer, "approve");
  await taskStatus(a, "completed");
  await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
  await page.goto("/tasks");
  await page.screenshot({ path: "/tmp/cs-tasks.png", fullPage: true });
  await page.goto(`/tasks/${a}`);
  await page.screenshot({ path: "/tmp/cs-task.png", fullPage: true });
  await page.context().clearCookies();
  await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
  await page.goto("/audit");
  await page.getByText("Chain verified").waitFor();
  await page.screenshot({ path: "/tmp/cs-audit.png", fullPage: true });
  await page.context().clearCookies();
  await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
  await page.goto("/admin");
  await page.screenshot({ path: "/tmp/cs-admin.png", fullPage: true });
});
