import { expect, test, type Page } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";

type Doc = { tools: Record<string, { rules: Array<Record<string, unknown>> }> };

async function openPolicy(page: Page) {
  const tenant = await seedTenant();
  await signIn(page, tenant.users.admin.email, TEST_PASSWORD);
  await page.goto("/admin");
  const editor = page.getByLabel(/Policy document \(JSON\)/);
  const document = JSON.parse(await editor.inputValue()) as Doc;
  return { tenant, editor, document };
}

test.describe("policy editor", () => {
  test("the validator rejects a field the tool does not have, a wrongly typed comparison and a misspelt tool; none can be saved", async ({ page }) => {
    const { tenant, editor, document } = await openPolicy(page);
    const bad = structuredClone(document);
    bad.tools.refund_invoice.rules.unshift(
      { id: "by-amount", when: "args.amount > 100000", effect: "deny", reason: "Large refunds." },
      { id: "by-words", when: "args.amount_minor > 'lots'", effect: "deny", reason: "Large refunds." },
    );
    bad.tools.run_pyhton = { rules: [{ id: "python-typo", effect: "require_approval", reason: "Code runs." }] };
    await editor.fill(JSON.stringify(bad, null, 2));
    await page.getByRole("button", { name: "Validate" }).click();
    const problems = page.getByRole("list", { name: "Policy problems" });
    await expect(problems.getByRole("listitem")).toHaveCount(3);
    await expect(problems).toContainText('Rule "by-amount": args.amount is not an argument of refund_invoice — did you mean args.amount_minor?');
    await expect(problems).toContainText('Rule "by-words": does not type-check against refund_invoice\'s arguments');
    await expect(problems).toContainText("There is no tool named run_pyhton — did you mean run_python?");
    await expect(page.getByRole("main").getByRole("alert")).not.toContainText("valid:");
    // Each problem also shows at the field it concerns, in the rules editor, which turns to its tool.
    const rules = page.getByRole("group", { name: "Rules editor" });
    await expect(rules.getByLabel("Tool")).toHaveValue("refund_invoice");
    const condition = rules.getByRole("listitem", { name: "Rule 1: by-amount" }).getByLabel(/^Condition/);
    await expect(condition).toHaveAttribute("aria-invalid", "true");
    await expect(condition).toHaveAccessibleDescription(/args\.amount is not an argument of refund_invoice/);
    await expect(rules.getByRole("listitem", { name: "Rule 3: refund-over-limit" }).getByLabel(/^Condition/)).not.toHaveAttribute("aria-invalid");

    await page.getByRole("button", { name: "Save policy" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("was not saved: 3 problems");
    expect(await e2eDb().toolPolicy.count({ where: { tenantId: tenant.id } })).toBe(1);

    await editor.fill(JSON.stringify(document, null, 2));
    await page.getByRole("button", { name: "Validate" }).click();
    await expect(page.getByRole("status").filter({ hasText: "every tool exists and every condition type-checks" })).toBeVisible();
  });

  test("the rules editor and the JSON stay in step; a sample and a dry run show what the draft would decide before saving", async ({ page }) => {
    const { tenant, editor } = await openPolicy(page);
    for (const amount_minor of [50_000, 200_000]) {
      await proposeAction(e2eDb(), { tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor, reason: "e2e refund" } });
    }
    const rules = page.getByRole("group", { name: "Rules editor" });
    await rules.getByLabel("Tool").selectOption("refund_invoice");
    const large = rules.getByRole("listitem", { name: "Rule 2: refund-large" });
    await large.getByLabel("Outcome").selectOption("deny");
    const edited = JSON.parse(await editor.inputValue()) as Doc;
    expect(edited.tools.refund_invoice.rules[1]).toMatchObject({ id: "refund-large", effect: "deny" });
    expect(edited.tools.refund_invoice.rules[1]).not.toHaveProperty("quorum");

    // An edit in the JSON shows in the form.
    edited.tools.refund_invoice.rules[2].reason = "Small refunds, edited as JSON.";
    await editor.fill(JSON.stringify(edited, null, 2));
    await expect(rules.getByRole("listitem", { name: "Rule 3: refund-small" }).getByLabel(/^Reason/)).toHaveValue("Small refunds, edited as JSON.");

    // Test this rule runs it on a sample at once: 1,500.00 is denied by refund-large under the draft.
    await large.getByRole("button", { name: "Test this rule" }).click();
    await expect(page.getByLabel("Sample tool")).toBeFocused();
    const sample = page.getByRole("status", { name: "Sample result" });
    await expect(sample).toContainText("Rule refund-large holds on this sample and decides it.");
    await expect(sample).toContainText("deny by rule refund-large");
    await expect(sample.getByRole("list", { name: "Rules tried" })).toContainText("refund-large holds — decides");

    // Dry run over the two recorded refunds: the 2,000.00 one changes from two approvals to deny.
    await page.getByLabel("Last N actions (1–200)").fill("10");
    await page.getByRole("button", { name: "Run dry run" }).click();
    const run = page.getByRole("status", { name: "Dry run result" });
    await expect(run).toContainText("1 of 2 recent actions would be decided differently under the draft.");
    await expect(run.getByRole("row").filter({ hasText: "deny (changed)" })).toContainText("2,000.00");
    expect(await e2eDb().toolPolicy.count({ where: { tenantId: tenant.id } })).toBe(1);
  });
});
