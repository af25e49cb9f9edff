import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { LARGE_REFUND, propose, seedTenant, signInAs, SMALL_REFUND, type TestTenant, queueTakesKeys } from "@/e2e/review/fixtures";
import { startTask } from "@/lib/tasks/start-task";
import { e2eDb } from "@/e2e/support/runtime";

/** WCAG 2.2 AA, target size included: every violation counts, whatever its impact. */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return results.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

type RoleName = "admin" | "reviewer" | "requester" | "auditor";

/** Every console page each role can open, and the in-console 403 and 404 pages. */
function pagesFor(role: RoleName, ids: { action: string; task: string }): string[] {
  const common = [`/actions/${ids.action}`, "/account", "/actions/00000000-0000-4000-8000-000000000000"];
  const byRole: Record<RoleName, string[]> = {
    admin: ["/admin", "/admin/policy/1", "/admin/mcp", "/admin/webhooks", "/admin/slack", "/audit", "/queue"],
    reviewer: ["/queue", "/admin"],
    requester: ["/tasks", `/tasks/${ids.task}`, "/queue"],
    auditor: ["/audit", "/queue"],
  };
  return [...byRole[role], ...common];
}

async function seed(tenant: TestTenant) {
  const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
  await propose(tenant, "refund_invoice", SMALL_REFUND);
  await propose(tenant, "send_email", { to: "billing@initech.example", subject: "Payment reminder", body: "Your invoice is overdue.", invoice_number: "INV-1045" });
  const { taskId } = await startTask(e2eDb(), {
    tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Refund INV-1043", planner: "offline",
  });
  return { action: id, task: taskId };
}

test.describe("accessibility (axe, WCAG 2.2 AA)", () => {
  for (const role of ["admin", "reviewer", "requester", "auditor"] as const) {
    test.describe(`as ${role}`, () => {
      let tenant: TestTenant;
      let ids: { action: string; task: string };
      test.beforeAll(async () => {
        tenant = await seedTenant();
        ids = await seed(tenant);
      });
      for (const which of pagesFor(role, { action: "ACTION", task: "TASK" })) {
        test(`${which} has no violations`, async ({ page }) => {
          const path = which.replace("ACTION", ids.action).replace("TASK", ids.task);
          await signInAs(page, tenant.users[role].email);
          await page.goto(path);
          await expect(page.locator("h1").first()).toBeVisible();
          expect(await violations(page)).toEqual([]);
          // One main landmark: the in-console 403 and 404 pages render inside the console's own.
          await expect(page.locator("main")).toHaveCount(1);
        });
      }
    });
  }

  test("the queue's decision dialog and the phone layout have no violations", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(page.getByRole("list", { name: "Pending actions" }).getByRole("listitem")).toHaveCount(2);
    await queueTakesKeys(page);
    await page.keyboard.press("a");
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await violations(page)).toEqual([]);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/actions/${id}`);
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });
});
