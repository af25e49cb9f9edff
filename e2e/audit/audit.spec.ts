import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { strFromU8, unzipSync } from "fflate";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD, type TestTenant } from "@/e2e/support/factories";
import { e2eDb, e2eOwnerDb } from "@/e2e/support/runtime";
import { AUDIT_EXPORT_COLUMNS } from "@/lib/audit/audit-export-format";
import { AUDIT_CONTEXT_COLUMNS } from "@/lib/audit/audit-export-context";
import { decide, expectNoSeriousA11yViolations, pendingAction, startTaskInDb, taskStatus } from "@/e2e/tasks/task-helpers";

/** A tenant with a decided email (approved) and a decided cancellation (rejected). */
async function tenantWithHistory(): Promise<{ tenant: TestTenant; emailRisk: string }> {
  const tenant = await seedTenant();
  const reminder = await startTaskInDb(tenant, "Send a payment reminder for INV-1042");
  const cancel = await startTaskInDb(tenant, "Cancel invoice INV-1045");
  const email = await pendingAction(reminder, "send_email");
  const cancellation = await pendingAction(cancel, "cancel_invoice");
  await decide(tenant, email, tenant.users.reviewer, "approve");
  await decide(tenant, cancellation, tenant.users.reviewer2, "reject", "Not this quarter");
  await taskStatus(reminder, "completed");
  await taskStatus(cancel, "completed");
  return { tenant, emailRisk: email.riskLevel };
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") { row.push(cell); cell = ""; }
    else if (ch === "\r" && text[i + 1] === "\n") { row.push(cell); rows.push(row); row = []; cell = ""; i++; }
    else cell += ch;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

test.describe("audit explorer", () => {
  test("an auditor filters by tool and risk, sees the chain verified, and exports both formats", async ({ page }) => {
    const { tenant, emailRisk } = await tenantWithHistory();
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    await page.goto("/audit");
    await expect(page.getByText("Evidence verified")).toBeVisible();
    await expect(page.getByTestId("audit-verifier-key")).toContainText("countersign-audit+");
    await expect(page.getByRole("figure").filter({ hasText: "Decisions over time" })).toContainText("approved: 1");

    const filters = page.getByRole("form", { name: "Audit filters" });
    await filters.getByLabel("Tool").selectOption("send_email");
    await filters.getByLabel("Risk").selectOption(emailRisk);
    // Filters apply without a full-page reload: a value set on this window survives them.
    await page.evaluate(() => Object.assign(window, { auditPageMarker: "kept" }));
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`tool=send_email.*risk=${emailRisk}|risk=${emailRisk}.*tool=send_email`));
    expect(await page.evaluate(() => (window as unknown as { auditPageMarker?: string }).auditPageMarker)).toBe("kept");
    const rows = page.getByTestId("audit-row");
    await expect(rows.first()).toBeVisible();
    const count = await rows.count();
    for (let i = 0; i < count; i++) await expect(rows.nth(i)).toContainText("send_email");
    await expect(page.getByTestId("audit-row").filter({ hasText: "cancel_invoice" })).toHaveCount(0);

    const expected = await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, tool: "send_email", riskLevel: emailRisk as never } });
    expect(expected).toBeGreaterThan(0);

    const [csvDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csv = parseCsv(readFileSync(await csvDownload.path(), "utf8"));
    expect(csv[0]).toEqual([...AUDIT_EXPORT_COLUMNS, ...AUDIT_CONTEXT_COLUMNS]);
    const body = csv.slice(1);
    expect(body).toHaveLength(expected);
    const col = (name: string) => AUDIT_EXPORT_COLUMNS.indexOf(name as (typeof AUDIT_EXPORT_COLUMNS)[number]);
    for (const row of body) {
      expect(row[col("tool")]).toBe("send_email");
      expect(row[col("riskLevel")]).toBe(emailRisk);
    }
    // What was approved, by whom, readable: the summary, the canonical arguments, the reviewer's email.
    const read = (row: string[], name: (typeof AUDIT_CONTEXT_COLUMNS)[number]) => row[AUDIT_EXPORT_COLUMNS.length + AUDIT_CONTEXT_COLUMNS.indexOf(name)];
    const approval = body.find((row) => row[col("type")] === "decision.recorded");
    expect(approval && read(approval, "reviewerEmail")).toBe(tenant.users.reviewer.email);
    expect(approval && JSON.parse(read(approval, "arguments"))).toMatchObject({ to: expect.any(String), subject: expect.any(String) });
    expect(approval && read(approval, "summary")).toMatch(/\S/);

    const [jsonlDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSONL (verifiable)" }).click()]);
    const jsonl = readFileSync(await jsonlDownload.path(), "utf8");
    const lines = jsonl.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; leaf?: Record<string, unknown>; inclusion?: unknown });
    expect(lines[0]).toMatchObject({ kind: "countersign.audit-export", complete: false });
    const leaves = lines.filter((l) => l.kind === "event");
    expect(leaves).toHaveLength(expected);
    for (const line of leaves) expect(line).toMatchObject({ leaf: { tool: "send_email", riskLevel: emailRisk }, inclusion: expect.anything() });
    // Newest first, and the same events in both formats.
    expect(leaves.map((l) => l.leaf!.eventId)).toEqual(body.map((r) => r[col("id")]));
    // The verifiable format verifies offline, with the key the console publishes.
    const keys = (await (await page.request.get("/.well-known/countersign-audit-keys")).json()) as { logKey: string };
    const verified = spawnSync(process.execPath, ["scripts/verify-audit-export.mjs", await jsonlDownload.path(), "--log-key", keys.logKey], { encoding: "utf8" });
    expect(verified.stderr.split("\n")[0]).toBe("");
    expect(verified.status).toBe(0);

    // The oversight evidence pack for the default range (the last 30 days), verified inside.
    const [packDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export evidence" }).click()]);
    const pack = unzipSync(new Uint8Array(readFileSync(await packDownload.path())));
    expect(Object.keys(pack)).toEqual(expect.arrayContaining(["events.jsonl", "verify-audit-export.mjs", "verification.json", "policies.json", "roles.json", "decisions.csv"]));
    expect(JSON.parse(strFromU8(pack["verification.json"]))).toMatchObject({ offlineVerifier: { ok: true } });
    expect(strFromU8(pack["decisions.csv"])).toContain(`,${tenant.users.reviewer.email},approve,`);

    // The decision filter: only the rejected cancellation.
    await page.goto("/audit?verdict=reject");
    await expect(page.getByTestId("audit-row")).toHaveCount(1);
    await expect(page.getByTestId("audit-row")).toContainText("cancel_invoice");
    // Free text over type / actor / requester / tool.
    await page.goto(`/audit?q=${encodeURIComponent("decision.rec")}`);
    await expect(page.getByTestId("audit-row")).toHaveCount(2);
    await expectNoSeriousA11yViolations(page);
  });

  test("a tampered event is named by the evidence verification, also after it was checkpointed", async ({ page }) => {
    const tenant = await seedTenant();
    const taskId = await startTaskInDb(tenant, "Send a payment reminder for INV-1042");
    await pendingAction(taskId, "send_email");
    // Events are sealed into the chain moments after they are written.
    await expect.poll(() => e2eDb().auditSeal.count({ where: { tenantId: tenant.id, seq: 2 } })).toBe(1);
    const victim = await e2eDb().auditSeal.findFirstOrThrow({ where: { tenantId: tenant.id, seq: 2 } });
    // As the owner: the app role may not switch the triggers off.
    const owner = e2eOwnerDb();
    await owner.$transaction([
      owner.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
      owner.$executeRaw`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim.eventId}`,
      owner.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
    ]);
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    await page.goto("/audit");
    // Whether or not a checkpoint already covered it, a full verification names it.
    await page.getByRole("button", { name: "Verify every event now" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Full verification started" })).toBeVisible();
    const alert = page.getByRole("alert").filter({ hasText: "Evidence verification failed" });
    await expect(async () => {
      await page.reload();
      await expect(alert).toContainText(`Event ${victim.eventId} (leaf 2) fails its MAC`, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await expect(alert).toContainText("was changed after sealing");
  });

  test("a failure found stays red on /audit after the database's owner deletes its rows", async ({ page }) => {
    const tenant = await seedTenant();
    const taskId = await startTaskInDb(tenant, "Send a payment reminder for INV-1042");
    await pendingAction(taskId, "send_email");
    await expect.poll(() => e2eDb().auditSeal.count({ where: { tenantId: tenant.id, seq: 2 } })).toBe(1);
    const victim = await e2eDb().auditSeal.findFirstOrThrow({ where: { tenantId: tenant.id, seq: 2 } });
    const owner = e2eOwnerDb();
    await owner.$transaction([
      owner.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
      owner.$executeRaw`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim.eventId}`,
      owner.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
    ]);
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    await page.goto("/audit");
    await page.getByRole("button", { name: "Verify every event now" }).click();
    const alarms = page.getByTestId("audit-alarms");
    await expect(async () => {
      await page.reload();
      await expect(alarms).toContainText(`Event ${victim.eventId} (leaf 2) fails its MAC`, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    // Every verification row of the tenant deleted: the console still remembers what it found.
    await owner.$transaction([
      owner.$executeRawUnsafe(`ALTER TABLE "AuditVerification" DISABLE TRIGGER USER`),
      owner.$executeRaw`DELETE FROM "AuditVerification" WHERE "tenantId" = ${tenant.id}::uuid`,
      owner.$executeRawUnsafe(`ALTER TABLE "AuditVerification" ENABLE TRIGGER USER`),
    ]);
    await page.reload();
    await expect(page.getByText("✓ Evidence verified")).toHaveCount(0);
    await expect(page.getByRole("alert").filter({ hasText: "Evidence verification failed" })).toBeVisible();
    await expect(alarms).toContainText(`Event ${victim.eventId} (leaf 2) fails its MAC`);
    await expect(page.getByRole("alert").filter({ hasText: "Evidence verification failed" })).toContainText(`npm run audit:resolve -- ${tenant.id}`);
  });

  test("a checkpoint row the console's own role inserted leaves /audit and the export working, and is named", async ({ page }) => {
    const tenant = await seedTenant();
    const taskId = await startTaskInDb(tenant, "Send a payment reminder for INV-1042");
    await pendingAction(taskId, "send_email");
    await expect.poll(() => e2eDb().auditCheckpoint.count({ where: { tenantId: tenant.id } }), { timeout: 20_000 }).toBeGreaterThan(0);
    // As the console's database role, whose right is INSERT: a frontier of the wrong shape.
    const [forged] = await e2eDb().$queryRaw<Array<{ id: bigint }>>`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      VALUES (${tenant.id}::uuid, 59, ${"ab".repeat(32)}, ARRAY[${"cd".repeat(32)}], ${"forged\n59\n"}, ARRAY[]::text[]) RETURNING id`;
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    await page.goto("/audit");
    await expect(page.getByRole("alert").filter({ hasText: "Evidence verification failed" })).toContainText(`Checkpoint ${forged.id} (size 59) is not signed by this console's key`);
    await expect(page.getByTestId("audit-verifier-key")).toBeVisible();
    const res = await page.request.get("/api/audit/export?format=jsonl");
    expect(res.status()).toBe(200);
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l) as { kind: string; note?: string });
    expect(lines.filter((l) => l.kind === "event").length).toBeGreaterThan(1);
    expect(lines.filter((l) => l.kind === "checkpoint").every((l) => !l.note?.startsWith("forged"))).toBe(true);
  });

  test("filters and exports are scoped to the auditor's own tenant", async ({ page }) => {
    const mine = await seedTenant();
    const theirs = await seedTenant();
    await startTaskInDb(theirs, "Send a payment reminder for INV-1042");
    await expect.poll(() => e2eDb().auditEvent.count({ where: { tenantId: theirs.id } })).toBeGreaterThan(0);
    await signIn(page, mine.users.auditor.email, TEST_PASSWORD);
    await page.goto(`/audit?requester=${encodeURIComponent(theirs.users.requester.email)}`);
    await expect(page.getByText("No events match these filters")).toBeVisible();
    const res = await page.request.get(`/api/audit/export?format=jsonl&requester=${encodeURIComponent(theirs.users.requester.email)}`);
    expect(res.status()).toBe(200);
    const filtered = (await res.text()).trim().split("\n").map((l) => JSON.parse(l) as { kind: string; tenantId?: string });
    expect(filtered[0]).toMatchObject({ kind: "countersign.audit-export", tenantId: mine.id });
    expect(filtered.filter((l) => l.kind === "event")).toEqual([]);
    const all = await page.request.get("/api/audit/export?format=jsonl");
    const events = (await all.text()).trim().split("\n").map((l) => JSON.parse(l) as { kind: string; leaf?: { tenantId: string; requester: string | null; actorLabel: string } })
      .filter((l) => l.kind === "event").map((l) => l.leaf!);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.tenantId === mine.id)).toBe(true);
    expect(events.some((e) => e.requester === theirs.users.requester.email || e.actorLabel === theirs.users.requester.email)).toBe(false);
  });

  test("refusals: requesters get 403 for /audit and the export; strangers get 401; bad filters get 400", async ({ page, baseURL }) => {
    const tenant = await seedTenant();
    await signIn(page, tenant.users.requester.email, TEST_PASSWORD);
    expect((await page.goto("/audit"))?.status()).toBe(403);
    expect((await page.request.get("/api/audit/export?format=csv")).status()).toBe(403);
    const anonymous = await playwrightRequest.newContext({ baseURL });
    const res = await anonymous.get("/api/audit/export?format=csv");
    expect(res.status()).toBe(401);
    await anonymous.dispose();
    await page.context().clearCookies();
    await signIn(page, tenant.users.auditor.email, TEST_PASSWORD);
    const bad = await page.request.get("/api/audit/export?format=csv&risk=apocalyptic");
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.message).toContain("risk");
  });
});
