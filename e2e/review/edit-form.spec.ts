import { expect, test } from "@playwright/test";
import { actionRow, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND } from "@/e2e/review/fixtures";

// The edit form is generated from the tool's argument schema; money is typed in major units and
// written to the JSON (what is submitted) as integer minor units.
test("a refund's amount edited through the form to 300.00 becomes a revision with amount_minor 30000", async ({ page }) => {
  const tenant = await seedTenant();
  const { id } = await propose(tenant, "refund_invoice", SMALL_REFUND);
  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);

  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const form = page.getByRole("form", { name: "Edit arguments" });
  const amount = form.getByLabel("Amount", { exact: true });
  await expect(amount).toHaveValue("450.00");
  await expect(form.getByLabel("Invoice number", { exact: true })).toHaveValue("INV-1043");

  // A third decimal is refused at the field, and the JSON keeps the last valid amount.
  await amount.fill("300.001");
  await expect(form.getByText("At most two decimals (cents).")).toBeVisible();
  await expect(form.getByLabel("Arguments (JSON)")).toHaveValue(/"amount_minor": 45000/);

  // An emptied amount is not submitted as the old one: Save says what is wrong and writes nothing.
  await amount.fill("");
  await form.getByRole("button", { name: "Save as new revision" }).click();
  await expect(form.getByRole("alert")).toHaveText("Amount: Enter an amount, like 450.00.");
  expect((await actionRow(id)).currentRevision).toBe(1);

  await amount.fill("300.00");
  await expect(form.getByLabel("Arguments (JSON)")).toHaveValue(/"amount_minor": 30000/);

  // Broken JSON disables the form and says so; fixing it enables the form again.
  const json = form.getByLabel("Arguments (JSON)");
  const valid = await json.inputValue();
  await json.fill("{");
  await expect(form.getByText(/The JSON does not parse/)).toBeVisible();
  await expect(amount).toBeDisabled();
  await json.fill(valid);
  await expect(amount).toBeEnabled();
  await expect(amount).toHaveValue("300.00");

  await form.getByRole("button", { name: "Save as new revision" }).click();
  await expect(page.getByRole("heading", { name: "Changes from revision 1" })).toBeVisible();
  expect((await actionRow(id)).currentRevision).toBe(2);
  const revision = await e2eDb().actionRevision.findFirstOrThrow({ where: { actionId: id, revision: 2 } });
  expect(revision.args).toEqual({ ...SMALL_REFUND, amount_minor: 30_000 });
});
