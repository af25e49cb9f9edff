import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { LARGE_REFUND, propose, seedTenant, signInAs, SMALL_REFUND, type TestTenant, queueTakesKeys } from "@/e2e/review/fixtures";
import { startTask } from "@/lib/tasks/start-task";
import { e2eDb } from "@/e2e/support/runtime";
import { createApiKey } from "@/lib/api-keys/create-api-key";

/** WCAG 2.2 AA, target size included: every violation counts, whatever its impact. */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return results.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

type RoleName = "admin" | "reviewer" | "requester" | "auditor";
type Ids = { action: string; code: string; task: string };

/** Every console page each role can open (the start page too), and the in-console 403 and 404 pages. */
function pagesFor(role: RoleName, ids: Ids): string[] {
  const common = ["/", `/actions/${ids.action}`, `/actions/${ids.code}`, "/account", "/actions/00000000-0000-4000-8000-000000000000"];
  const byRole: Record<RoleName, string[]> = {
    admin: ["/admin", "/admin/policy/1", "/admin/mcp", "/admin/webhooks", "/admin/slack", "/audit", "/queue", "/tasks"],
    reviewer: ["/queue", "/admin"],
    requester: ["/tasks", `/tasks/${ids.task}`, "/queue"],
    auditor: ["/audit", "/queue"],
  };
  return [...byRole[role], ...common];
}

async function seed(tenant: TestTenant): Promise<Ids> {
  const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
  await propose(tenant, "refund_invoice", SMALL_REFUND);
  await propose(tenant, "send_email", { to: "billing@initech.example", subject: "Payment reminder", body: "Your invoice is overdue.", invoice_number: "INV-1045" });
  // A code action: the code view is a scrollable region a keyboard user must be able to reach.
  const code = await propose(tenant, "run_python", { code: ["import json", `rows = [${"1, ".repeat(60)}2]`, "print('total', sum(rows))"].join("\n"), language: "python" });
  // A row in the admin's API key table (a wide table on a phone).
  await createApiKey(e2eDb(), { tenantId: tenant.id, name: "billing-agent-with-a-long-name", allowedTools: ["refund_invoice", "send_email", "get_invoice"], createdById: tenant.users.admin.id });
  const { taskId } = await startTask(e2eDb(), {
    tenantId: tenant.id, requester: { userId: tenant.users.requester.id, label: tenant.users.requester.email }, instruction: "Refund INV-1043", planner: "offline",
  });
  return { action: id, code: code.id, task: taskId };
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

const SIZES = [{ width: 390, height: 844 }, { width: 1440, height: 900 }] as const;

test.describe("accessibility (axe, WCAG 2.2 AA) and layout, every page, every role, phone and desktop", () => {
  for (const role of ["admin", "reviewer", "requester", "auditor"] as const) {
    test.describe(`as ${role}`, () => {
      let tenant: TestTenant;
      let ids: Ids;
      test.beforeAll(async () => {
        tenant = await seedTenant();
        ids = await seed(tenant);
      });
      for (const size of SIZES) {
        test(`at ${size.width}×${size.height}: no violations and no sideways scroll`, async ({ page }) => {
          test.slow(); // a dozen pages, each analysed
          await page.setViewportSize(size);
          await signInAs(page, tenant.users[role].email);
          for (const path of pagesFor(role, ids)) {
            await page.goto(path);
            await expect(page.locator("h1").first(), path).toBeVisible();
            expect.soft(await violations(page), `axe on ${path}`).toEqual([]);
            expect.soft(await sidewaysOverflow(page), `sideways scroll on ${path} (px)`).toBe(0);
            // One main landmark: the in-console 403 and 404 pages render inside the console's own.
            await expect.soft(page.locator("main"), path).toHaveCount(1);
          }
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
