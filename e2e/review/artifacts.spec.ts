import { expect, test } from "@playwright/test";
import { signInViaApi } from "@/e2e/support/auth";
import { e2eDb } from "@/e2e/support/runtime";
import { TEST_PASSWORD, propose, seedTenant, signInAs, approveOnActionPage } from "@/e2e/review/fixtures";
import { expectError, seedAgent } from "@/e2e/api/agent-fixtures";

// A 1x1 PNG; the code writes its bytes to /mnt/out from base64.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNg+M/AAAADAQEAGHeg5gAAAABJRU5ErkJggg==";

const CODE = [
  "import base64, csv, json",
  "rows = json.load(open('/mnt/data/buckets.json'))",
  `open('/mnt/out/chart.png', 'wb').write(base64.b64decode('${PNG_BASE64}'))`,
  "with open('/mnt/out/stale.csv', 'w', newline='') as f:",
  "    w = csv.writer(f)",
  "    w.writerow(['bucket', 'days'])",
  "    for r in rows:",
  "        if r['days'] > 365:",
  "            w.writerow([r['bucket'], r['days']])",
  "print('wrote 2 files')",
].join("\n");

const ROWS = [{ bucket: "logs-2019", days: 900 }, { bucket: "www", days: 2 }];

test("a code run's files: the reviewer sees the data set before approving, then the chart inline and the CSV as a download; other tenants get 404; the agent downloads its own", async ({ page, playwright, baseURL }) => {
  test.slow(); // a real sandbox run on a shared machine
  const agent = await seedAgent(["run_python"]);
  const tenant = agent.tenant;
  await e2eDb().dataset.create({ data: { tenantId: tenant.id, name: "buckets", content: ROWS } });
  const { id } = await propose(tenant, "run_python", { code: CODE, language: "python", datasets: ["buckets"] }, {
    requester: { type: "api_key", apiKeyId: agent.keyId, label: agent.name },
    reason: "Chart the stale buckets",
  });

  await signInAs(page, tenant.users.reviewer.email);
  await page.goto(`/actions/${id}`);
  const datasets = page.getByRole("region", { name: "Data sets it reads (1)" });
  await expect(datasets).toContainText("/mnt/data/buckets.json");
  const revision = await e2eDb().actionRevision.findFirstOrThrow({ where: { actionId: id, status: "current" } });
  const sha256 = ((revision.args as { datasets: { sha256: string }[] }).datasets)[0].sha256;
  await expect(datasets).toContainText(sha256.slice(0, 16));

  await approveOnActionPage(page);
  await page.getByRole("button", { name: "Run in sandbox" }).click();
  const output = page.getByLabel("Sandbox output");
  await expect(output).toContainText("wrote 2 files", { timeout: 90_000 });
  await expect(output).toContainText("Finished: succeeded", { timeout: 30_000 });
  await page.reload();

  const files = page.getByRole("group", { name: "Files the run left in /mnt/out" });
  const image = files.getByRole("img", { name: "chart.png" });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  const link = files.getByRole("link", { name: "stale.csv" });
  await expect(link).toBeVisible();
  const csvUrl = await link.getAttribute("href");
  const imageUrl = await image.getAttribute("src");
  expect(csvUrl).toMatch(new RegExp(`^/api/actions/${id}/artifacts/[0-9a-f-]{36}$`));

  const csv = await page.request.get(csvUrl!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()).toMatchObject({
    "content-type": "text/csv", "content-disposition": 'attachment; filename="stale.csv"', "x-content-type-options": "nosniff", "cache-control": "private, no-store",
  });
  expect(await csv.text()).toBe("bucket,days\r\nlogs-2019,900\r\n");

  // A member of another organisation: the same 404 as an unknown id.
  const other = await seedTenant();
  const outsider = await playwright.request.newContext({ baseURL });
  await signInViaApi(outsider, other.users.reviewer.email, TEST_PASSWORD);
  await expectError(await outsider.get(imageUrl!), 404, "not_found");
  await expectError(await outsider.get(`/api/actions/${id}/artifacts/${crypto.randomUUID()}`), 404, "not_found");
  await outsider.dispose();

  // The agent that proposed it lists the files on the execution and downloads them; another key of
  // the same tenant does not see them.
  const api = await playwright.request.newContext({ baseURL });
  const view = await (await api.get(`/api/v1/actions/${id}`, { headers: agent.headers })).json() as { execution: { result: { artifacts: { id: string; name: string; content_type: string; size_bytes: number }[] } } };
  const listed = view.execution.result.artifacts;
  expect(listed.map((a) => [a.name, a.content_type])).toEqual([["chart.png", "image/png"], ["stale.csv", "text/csv"]]);
  const png = await api.get(`/api/v1/actions/${id}/artifacts/${listed[0].id}`, { headers: agent.headers });
  expect(png.status()).toBe(200);
  expect(png.headers()).toMatchObject({ "content-type": "image/png", "content-disposition": 'inline; filename="chart.png"', "x-content-type-options": "nosniff" });
  expect((await png.body()).toString("base64")).toBe(PNG_BASE64);
  const stranger = await seedAgent(["run_python"], tenant);
  await expectError(await api.get(`/api/v1/actions/${id}/artifacts/${listed[0].id}`, { headers: stranger.headers }), 404, "not_found");
  await api.dispose();
});
