import { expect, test } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { actionRow, propose, seedTenant, signInAs, approveOnActionPage } from "@/e2e/review/fixtures";

const CODE = ["import json", "import pickle", "rows = [1, 2, 3]", "print('total', sum(rows))"].join("\n");

test("code shows with line numbers and findings; once approved it runs in the sandbox and the output streams in", async ({ page }) => {
  test.slow(); // a real sandbox run (Docker or bubblewrap) on a shared machine
  const tenant = await seedTenant();
  const { id } = await propose(tenant, "run_python", { code: CODE, language: "python" }, { reason: "Add up the rows" });
  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);
  const code = page.getByRole("region", { name: "python code with scan findings" });
  // The scan finding sits under the line it is about; the lines around it are numbered runs.
  await expect(code.locator("#code-line-2")).toContainText("import pickle");
  await expect(code.locator("#code-line-2")).toContainText("unsafe-deserialization");
  await expect(code.locator("#code-line-1")).toContainText("import json");
  await expect(code.locator("#code-line-1")).not.toContainText("unsafe-deserialization");
  await expect(code.locator("#code-line-3")).toContainText("rows = [1, 2, 3]");
  await expect(code.locator("#code-line-3")).toContainText("print('total', sum(rows))");
  await expect(code.locator('#code-line-3 [aria-hidden="true"]')).toHaveText("3\n4");
  await expect(page.getByRole("region", { name: /^Risk tags/ })).toContainText("line 2");
  await expect(page.getByRole("region", { name: "Sandbox spec (part of the hash)" })).toContainText("memoryBytes");
  // The level the reviewer approves, in words (part of the hash like the rest of the spec).
  await expect(page.getByRole("region", { name: "Sandbox spec (part of the hash)" })).toContainText(/Runs under (Docker container|gVisor|bubblewrap)/);
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await approveOnActionPage(page);
  await expect(page.getByRole("button", { name: "Run in sandbox" })).toBeVisible();
  await page.getByRole("button", { name: "Run in sandbox" }).click();
  const output = page.getByLabel("Sandbox output");
  await expect(output).toContainText("total 6", { timeout: 90_000 });
  await expect(output).toContainText("Finished: succeeded", { timeout: 30_000 });
  expect((await actionRow(id)).status).toBe("succeeded");
  await page.reload();
  await expect(page.getByRole("button", { name: "Run in sandbox" })).toHaveCount(0);
  await expect(page.getByLabel("Standard output")).toContainText("total 6");
});

test("long code is a few numbered runs, not an element per line, with each finding under its own line", async ({ page }) => {
  const tenant = await seedTenant();
  const lines = Array.from({ length: 5_000 }, (_, i) => `x_${i + 1} = ${i + 1}`);
  lines[2_999] = "import pickle";
  const { id } = await propose(tenant, "run_python", { code: lines.join("\n"), language: "python" });
  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);
  const code = page.getByRole("region", { name: "python code with scan findings" });
  await expect(code.locator("[id^=code-line-]")).toHaveCount(3);
  await expect(code.locator("#code-line-3000")).toContainText("import pickle");
  await expect(code.locator("#code-line-3000")).toContainText("unsafe-deserialization");
  await expect(code.locator("#code-line-1")).toContainText("x_2999 = 2999");
  await expect(code.locator("#code-line-3001")).toContainText("x_5000 = 5000");
  const gutter = await code.locator('#code-line-3001 [aria-hidden="true"]').textContent();
  expect(gutter?.split("\n")).toEqual(Array.from({ length: 2_000 }, (_, i) => String(3_001 + i)));
});

test("an edit of long code shows the changed line between two runs of kept lines, each one text", async ({ page }) => {
  const tenant = await seedTenant();
  const lines = Array.from({ length: 5_000 }, (_, i) => `x_${i + 1} = ${i + 1}`);
  const { id } = await propose(tenant, "run_python", { code: lines.join("\n"), language: "python" });
  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const edited = lines.with(2_999, "x_3000 = 0");
  await page.getByLabel("Arguments (JSON: code and language)").fill(JSON.stringify({ code: edited.join("\n"), language: "python" }));
  await page.getByRole("button", { name: "Save as new revision" }).click();
  await expect(page.getByRole("heading", { name: "Changes from revision 1" })).toBeVisible();

  const changes = page.getByRole("region", { name: "Code changes" });
  const runs = changes.locator(":scope > div");
  await expect(runs).toHaveCount(4);
  await expect(runs.nth(1)).toHaveText(/^−\s*removed, 1 line: x_3000 = 3000\s*$/);
  await expect(runs.nth(2)).toHaveText(/^\+\s*added, 1 line: x_3000 = 0\s*$/);
  const kept = await runs.nth(0).locator("code").textContent();
  expect(kept?.split("\n")).toEqual(lines.slice(0, 2_999));
  expect(await runs.nth(3).locator('[aria-hidden="true"]').textContent()).toBe(Array(2_000).fill(" ").join("\n"));
});
