import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { e2eDb, LARGE_REFUND, propose, seedTenant, signInAs, type TestTenant, approveOnActionPage } from "@/e2e/review/fixtures";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { sha256Hex } from "@/lib/canonical/sha256-hex";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { E2E_PORT } from "@/e2e/support/config";

/**
 * Passkeys for reviewers and passkey-signed approvals, in Chromium with its virtual authenticator
 * (WebAuthn over CDP: a CTAP2 platform authenticator with user verification).
 */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

/** A policy version in force that asks for signed approvals from risk level high. */
async function requireSignaturesFromHighRisk(tenant: TestTenant) {
  await e2eDb().toolPolicy.create({
    data: { tenantId: tenant.id, version: 2, document: { ...DEFAULT_POLICY, version: 2, defaults: { ...DEFAULT_POLICY.defaults, signatureAtRisk: "high" } } },
  });
}

async function addPasskey(page: Page, name: string) {
  await page.goto("/account");
  await page.getByLabel("Passkey name").fill(name);
  await page.getByRole("button", { name: "Add passkey" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Passkey “${name}” added.` })).toBeVisible();
  await expect(page.getByRole("list", { name: "Your passkeys" }).getByText(name, { exact: true })).toBeVisible();
}

// An IP address cannot be a WebAuthn RP id: these pages are opened at the console's host name
// (COUNTERSIGN_PUBLIC_ORIGINS in e2e/serve.ts).
test.use({ baseURL: `http://localhost:${E2E_PORT}` });

test.describe("passkeys and signed approvals", () => {
  test("a reviewer registers a passkey and approves a high-risk refund with it: the receipt binds payload, policy and snapshot, and the offline verifier passes", async ({ page, browser }) => {
    const tenant = await seedTenant();
    await requireSignaturesFromHighRisk(tenant);
    await signInAs(page, tenant.users.reviewer.email);
    await virtualAuthenticator(page);
    await addPasskey(page, "Work laptop");
    const db = e2eDb();
    expect(await db.auditEvent.count({ where: { tenantId: tenant.id, type: "passkey.registered", actorId: tenant.users.reviewer.id } })).toBe(1);

    const { id, payloadHash } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("The policy requires a signed approval")).toBeVisible();
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "Your approval is recorded: 1 of 2" })).toBeVisible();
    await expect(page.getByText("Signed with passkey")).toBeVisible();
    await expect(page.getByText("Work laptop", { exact: true })).toBeVisible();

    const decision = await db.decision.findFirstOrThrow({ where: { actionId: id }, include: { signature: true, revision: { include: { snapshots: true } } } });
    const signature = decision.signature!;
    const receipt = JSON.parse(signature.receipt) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      tenant: tenant.id, action: id, revision: 1, payloadHash, policyVersion: 2, verdict: "approve", reviewer: tenant.users.reviewer.id,
      snapshotHash: decision.revision.snapshots.find((s) => s.phase === "request")!.hash,
    });
    expect(signature.receiptHash).toBe(sha256Hex(canonicalJson(receipt as Parameters<typeof canonicalJson>[0])));
    expect(signature).toMatchObject({ passkeyName: "Work laptop", userVerified: true });
    await expect(page.getByText(signature.receiptHash)).toBeVisible();

    // The admin sees who has a passkey.
    const admin = await browser.newPage();
    await signInAs(admin, tenant.users.admin.email);
    await admin.goto("/admin");
    await expect(admin.getByRole("row").filter({ hasText: tenant.users.reviewer.email }).getByText("Passkey: 1 registered")).toBeVisible();
    await expect(admin.getByRole("row").filter({ hasText: tenant.users.reviewer2.email }).getByText("No passkey")).toBeVisible();
    await admin.close();

    // The auditor's JSONL export verifies offline, the signed approval with it.
    const auditor = await browser.newPage();
    await signInAs(auditor, tenant.users.auditor.email);
    const res = await auditor.request.get("/api/audit/export?format=jsonl");
    expect(res.status()).toBe(200);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-e2e-signed-")), "export.jsonl");
    writeFileSync(file, await res.text());
    const keys = (await (await auditor.request.get("/.well-known/countersign-audit-keys")).json()) as { logKey: string };
    const verified = spawnSync(process.execPath, ["scripts/verify-audit-export.mjs", file, "--log-key", keys.logKey], { encoding: "utf8" });
    expect(verified.stderr.split("\n")[0]).toBe("");
    expect(verified.status).toBe(0);
    expect(verified.stdout).toContain("passkey-signed approvals checked: 1");
    await auditor.close();
  });

  test("without a passkey the approval is refused with what to do; a removed passkey no longer signs; removal is audited", async ({ page }) => {
    const tenant = await seedTenant();
    await requireSignaturesFromHighRisk(tenant);
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await signInAs(page, tenant.users.reviewer2.email);
    await virtualAuthenticator(page);
    await page.goto(`/actions/${id}`);
    await approveOnActionPage(page);
    await expect(page.getByRole("alert").filter({ hasText: "add one on your account page" })).toBeVisible();

    await addPasskey(page, "Old key");
    await page.getByRole("button", { name: "Remove passkey Old key" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Passkey “Old key” removed." })).toBeVisible();
    const db = e2eDb();
    expect(await db.auditEvent.count({ where: { tenantId: tenant.id, type: "passkey.removed", actorId: tenant.users.reviewer2.id } })).toBe(1);
    await page.goto(`/actions/${id}`);
    await approveOnActionPage(page);
    await expect(page.getByRole("alert").filter({ hasText: "add one on your account page" })).toBeVisible();
    expect(await db.decision.count({ where: { actionId: id } })).toBe(0);
  });

  test("removing a passkey withdraws the approval it signed on an action that has not run: the page says so, the action is back in review, and a new passkey approves it again", async ({ page, browser }) => {
    const tenant = await seedTenant();
    await requireSignaturesFromHighRisk(tenant);
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    for (const [reviewer, shown] of [[tenant.users.reviewer, "1 of 2"], [tenant.users.reviewer2, "2 of 2"]] as const) {
      const other = reviewer === tenant.users.reviewer ? page : await browser.newPage();
      await signInAs(other, reviewer.email);
      await virtualAuthenticator(other);
      await addPasskey(other, "Laptop");
      await other.goto(`/actions/${id}`);
      await approveOnActionPage(other);
      await expect(other.getByRole("status").filter({ hasText: shown })).toBeVisible();
      if (other !== page) await other.close();
    }
    expect((await e2eDb().action.findUniqueOrThrow({ where: { id } })).status).toBe("approved");

    await page.goto("/account");
    await expect(page.getByText("Removing a passkey withdraws the approvals it signed")).toBeVisible();
    await page.getByRole("button", { name: "Remove passkey Laptop" }).click();
    await expect(page.getByRole("status").filter({ hasText: "1 action you approved with it had not run yet" })).toBeVisible();
    expect((await e2eDb().action.findUniqueOrThrow({ where: { id } })).status).toBe("pending");
    await page.goto(`/actions/${id}`);
    await expect(page.getByRole("note").filter({ hasText: "Back in review: an approval of this revision no longer counts" })).toContainText("so it needs 1 more");
    await expect(page.getByText(/no longer counts — the reviewer may not decide it now, or the passkey was removed/)).toBeVisible();

    // Their withdrawn approval does not stop them deciding again: signed with a new passkey, it counts.
    await addPasskey(page, "New laptop");
    await page.goto(`/actions/${id}`);
    await expect(page.getByText("You already approved this revision")).toHaveCount(0);
    await approveOnActionPage(page);
    await expect(page.getByRole("status").filter({ hasText: "2 of 2" })).toBeVisible();
    expect((await e2eDb().action.findUniqueOrThrow({ where: { id } })).status).toBe("approved");
    expect(await e2eDb().decision.count({ where: { actionId: id, reviewerId: tenant.users.reviewer.id } })).toBe(2);
  });
});

test.describe("passkeys at an IP address", () => {
  // The console the e2e server runs: NEXTAUTH_URL is 127.0.0.1, where a browser refuses passkeys.
  test.use({ baseURL: `http://127.0.0.1:${E2E_PORT}` });

  test("the account page and a signed approval say why passkeys cannot be used at 127.0.0.1 and link the same page on localhost", async ({ page }) => {
    const tenant = await seedTenant();
    await requireSignaturesFromHighRisk(tenant);
    const { id } = await propose(tenant, "refund_invoice", LARGE_REFUND);
    await signInAs(page, tenant.users.reviewer.email);
    await virtualAuthenticator(page);

    await page.goto("/account");
    const note = page.getByRole("note").filter({ hasText: "Passkeys cannot be used at 127.0.0.1" });
    await expect(note).toContainText("an IP address");
    await expect(note.getByRole("link", { name: `Open this page at localhost:${E2E_PORT}` })).toHaveAttribute("href", `http://localhost:${E2E_PORT}/account`);
    await expect(page.getByRole("button", { name: "Add passkey" })).toHaveCount(0);

    await page.goto(`/actions/${id}`);
    await expect(page.getByText("The policy requires a signed approval")).toBeVisible();
    const onAction = page.getByRole("note").filter({ hasText: "Passkeys cannot be used at 127.0.0.1" });
    const link = onAction.getByRole("link", { name: `Open this page at localhost:${E2E_PORT}` });
    await expect(link).toHaveAttribute("href", `http://localhost:${E2E_PORT}/actions/${id}`);
    // The confirmation says so before anything is confirmed, and offers no Approve that cannot work.
    await page.getByTestId("decision-form").getByRole("button", { name: "Approve", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Approve this action?" });
    await expect(dialog.getByRole("note").filter({ hasText: "Passkeys cannot be used at 127.0.0.1" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    expect(await e2eDb().decision.count({ where: { actionId: id } })).toBe(0);

    // The link leads to the same page on the host name (signed out there: through sign-in).
    await link.click();
    await expect(page).toHaveURL(new RegExp(`^http://localhost:${E2E_PORT}/signin\\?callbackUrl=%2Factions%2F${id}`));
  });
});
