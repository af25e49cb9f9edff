import { expect, test } from "@playwright/test";
import { actionRow, LARGE_REFUND, propose, seedTenant, signInAs, SMALL_REFUND, approveOnActionPage } from "@/e2e/review/fixtures";

const approve = (page: import("@playwright/test").Page) => page.getByRole("button", { name: "Approve", exact: true });
const reject = (page: import("@playwright/test").Page) => page.getByRole("button", { name: "Reject", exact: true });

test.describe("deciding on the action page", () => {
  test("a reviewer approves and the requester sees it approved, read-only", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND, { reason: "The goods came back damaged" });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("The goods came back damaged")).toBeVisible();
    await expect(page.getByText("0 of 1")).toBeVisible();
    await page.getByLabel("Note or reason").fill("Checked the return slip");
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved (1 of 1)" })).toBeVisible();
    await expect(page.getByText("approved", { exact: true }).first()).toBeVisible();
    expect((await actionRow(id)).status).toBe("approved");

    const requester = await browser.newPage();
    await signInAs(requester, tenant.users.requester.email);
    await requester.goto(`/actions/${id}`);
    await expect(requester.locator("main").getByText("approved", { exact: true }).first()).toBeVisible();
    await expect(requester.getByText("Checked the return slip")).toBeVisible();
    await expect(approve(requester)).toHaveCount(0);
    await expect(reject(requester)).toHaveCount(0);
    await expect(requester.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await requester.close();
  });

  test("a rejection needs a reason, and the requester sees the reason", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await reject(page).click();
    await expect(page.getByRole("alert").filter({ hasText: "Write a reason" })).toBeVisible();
    await expect(page.getByLabel("Note or reason")).toBeFocused();
    expect((await actionRow(id)).status).toBe("pending");
    await page.getByLabel("Note or reason").fill("Refund exceeds what the policy allows for returns");
    await reject(page).click();
    await expect(page.getByRole("status").filter({ hasText: "Rejected" })).toBeVisible();
    expect((await actionRow(id)).status).toBe("rejected");

    const requester = await browser.newPage();
    await signInAs(requester, tenant.users.requester.email);
    await requester.goto(`/actions/${id}`);
    await expect(requester.getByText("Why it is rejected:")).toBeVisible();
    await expect(requester.getByText("Refund exceeds what the policy allows for returns").first()).toBeVisible();
    await requester.close();
  });

  test("a large refund needs two different reviewers; one reviewer's second vote does not count", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("0 of 2")).toBeVisible();
    // A second tab of the same reviewer, opened before the first vote.
    const secondTab = await page.context().newPage();
    await secondTab.goto(`/actions/${id}`);

    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "1 of 2 approvals" })).toBeVisible();
    await expect(page.getByText("You already approved this revision")).toBeVisible();
    expect((await actionRow(id)).status).toBe("pending");

    await approveOnActionPage(secondTab);
    await expect(secondTab.getByRole("alert").filter({ hasText: "Your second vote does not count" })).toBeVisible();
    const afterSecond = await actionRow(id);
    expect(afterSecond.status).toBe("pending");
    expect(afterSecond.decisions).toHaveLength(1);

    const other = await browser.newPage();
    await signInAs(other, tenant.users.reviewer2.email);
    await other.goto(`/actions/${id}`);
    await expect(other.getByText("1 of 2")).toBeVisible();
    await approveOnActionPage(other);
    await expect(other.getByRole("status").filter({ hasText: "Approved (2 of 2)" })).toBeVisible();
    expect((await actionRow(id)).status).toBe("approved");
    await other.close();
  });
});
