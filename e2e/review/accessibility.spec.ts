import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { LARGE_REFUND, propose, seedTenant, signInAs, SMALL_REFUND } from "@/e2e/review/fixtures";

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test.describe("accessibility (axe)", () => {
  test("the queue and the action page have no serious or critical violations", async ({ page }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto("/queue");
    await expect(page.getByRole("list", { name: "Pending actions" }).getByRole("listitem")).toHaveCount(2);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("a");
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`/actions/${id}`);
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
