import { expect, test, type Page } from "@playwright/test";
import { actionRow, addMember, e2eDb, propose, seedTenant, signInAs, SMALL_REFUND } from "@/e2e/review/fixtures";

const approve = (page: Page) => page.getByTestId("decision-form").getByRole("button", { name: "Approve", exact: true });

/**
 * Records the server-action request a reviewer's Approve sends (its `Next-Action` id and body), so
 * another member can replay it against another action, as a hand-crafted request would.
 */
async function captureDecisionRequest(page: Page) {
  await approve(page).click();
  const request = page.waitForRequest((r) => r.method() === "POST" && Boolean(r.headers()["next-action"]));
  await page.getByRole("dialog", { name: "Approve this action?" }).getByRole("button", { name: "Approve", exact: true }).click();
  const sent = await request;
  return { actionHeader: sent.headers()["next-action"], body: sent.postData() ?? "", url: sent.url() };
}

/** Replays it as the browser sent it (same origin), or with `headers` replacing the browser's. */
async function replayDecision(
  page: Page,
  captured: { actionHeader: string; body: string; url: string },
  from: { id: string; hash: string },
  to: { id: string; hash: string },
  headers: Record<string, string> = { Origin: new URL(captured.url).origin, "Sec-Fetch-Site": "same-origin" },
) {
  const response = await page.request.post(captured.url, {
    headers: { "Next-Action": captured.actionHeader, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", ...headers },
    data: captured.body.replace(from.id, to.id).replace(from.hash, to.hash),
  });
  return response.text();
}

test.describe("refusals, in the browser and by direct request", () => {
  test("a requester opening the review queue gets 403", async ({ page }) => {
    const tenant = await seedTenant();
    await signInAs(page, tenant.users.requester.email);
    const response = await page.goto("/queue");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Your roles do not allow this page" })).toBeVisible();
  });

  test("a member with requester and reviewer roles cannot decide their own request, even with a doctored form", async ({ page }) => {
    const tenant = await seedTenant();
    const both = await addMember(tenant, "both", ["requester", "reviewer"]);
    const own = await propose(tenant, "refund_invoice", SMALL_REFUND, { requester: both.requester });
    const someoneElses = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 1_000 });
    await signInAs(page, both.email);

    await page.goto("/queue");
    const queue = page.getByRole("list", { name: "Pending actions" });
    await expect(queue.locator(`[data-action-id="${someoneElses.id}"]`)).toBeVisible();
    await expect(queue.locator(`[data-action-id="${own.id}"]`)).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Your own requests, waiting for another reviewer" })).toBeVisible();

    await page.goto(`/actions/${own.id}`);
    await expect(page.getByText("You requested this action, so another reviewer must decide it.")).toBeVisible();
    await expect(approve(page)).toHaveCount(0);

    // Devtools-style: point the decision form on another action at their own one. (The page's live
    // reads are held back: a re-render would put the form's own values back before the click.)
    await page.route("**/api/actions/*/decision-state", (route) => route.abort());
    await page.goto(`/actions/${someoneElses.id}`);
    await page.locator('input[name="actionId"]').evaluate((el, value) => ((el as HTMLInputElement).value = value), own.id);
    await page.locator('input[name="payloadHash"]').evaluate((el, value) => ((el as HTMLInputElement).value = value), own.payloadHash);
    await approve(page).click();
    await page.getByRole("dialog", { name: "Approve this action?" }).getByRole("button", { name: "Approve", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "You requested this action, so you cannot decide it" })).toBeVisible();
    const row = await actionRow(own.id);
    expect(row.status).toBe("pending");
    expect(row.decisions).toHaveLength(0);
  });

  test("an auditor sees no decision controls and a direct server-action request is refused", async ({ page, browser }) => {
    const tenant = await seedTenant();
    const first = await propose(tenant, "refund_invoice", SMALL_REFUND);
    const target = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 2_000 });

    const auditor = await browser.newPage();
    await signInAs(auditor, tenant.users.auditor.email);
    await auditor.goto(`/actions/${target.id}`);
    await expect(auditor.getByText("Your roles let you read this action, not decide it.")).toBeVisible();
    await expect(approve(auditor)).toHaveCount(0);
    await expect(auditor.getByRole("button", { name: "Reject", exact: true })).toHaveCount(0);
    await expect(auditor.getByRole("button", { name: "Edit" })).toHaveCount(0);

    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${first.id}`);
    const captured = await captureDecisionRequest(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();

    const answer = await replayDecision(auditor, captured, { id: first.id, hash: first.payloadHash }, { id: target.id, hash: target.payloadHash });
    expect(answer).toContain('"code":"forbidden"');
    // The auditor's replayed approval is in the log, with who tried.
    await expect.poll(() => e2eDb().auditEvent.count({
      where: { tenantId: tenant.id, type: "console.refused", actorId: tenant.users.auditor.id, status: "forbidden" },
    })).toBe(1);
    // The same for the requester, by direct request.
    const requester = await browser.newPage();
    await signInAs(requester, tenant.users.requester.email);
    const requesterAnswer = await replayDecision(requester, captured, { id: first.id, hash: first.payloadHash }, { id: target.id, hash: target.payloadHash });
    expect(requesterAnswer).toContain('"code":"forbidden"');
    const row = await actionRow(target.id);
    expect(row.status).toBe("pending");
    expect(row.decisions).toHaveLength(0);
    await auditor.close();
    await requester.close();
  });

  test("a replayed server action sent cross-site, or without saying where it comes from, is refused and audited", async ({ page }) => {
    const tenant = await seedTenant();
    const first = await propose(tenant, "refund_invoice", SMALL_REFUND);
    const target = await propose(tenant, "refund_invoice", { ...SMALL_REFUND, amount_minor: 3_000 });
    await signInAs(page, tenant.users.reviewer.email);
    await page.goto(`/actions/${first.id}`);
    const captured = await captureDecisionRequest(page);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
    const moved = [{ id: first.id, hash: first.payloadHash }, { id: target.id, hash: target.payloadHash }] as const;

    // A foreign Origin never reaches the action (Next.js refuses it first); the console refuses the
    // rest itself: cross-site fetch metadata, and a cookie-authenticated POST with no Origin.
    expect(await replayDecision(page, captured, ...moved, { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" })).not.toContain('"ok":true');
    expect(await replayDecision(page, captured, ...moved, { "Sec-Fetch-Site": "cross-site" })).toContain('"code":"cross_site_request"');
    expect(await replayDecision(page, captured, ...moved, {})).toContain('"code":"origin_required"');
    const row = await actionRow(target.id);
    expect(row.status).toBe("pending");
    expect(row.decisions).toHaveLength(0);
    const refused = await e2eDb().auditEvent.findMany({ where: { tenantId: tenant.id, type: "console.refused", actorId: tenant.users.reviewer.id } });
    expect(refused.map((e) => e.status).sort()).toEqual(["cross_site_request", "origin_required"]);
  });

  test("another tenant's action id and a malformed id are both 404", async ({ page }) => {
    const mine = await seedTenant();
    const theirs = await seedTenant();
    const foreign = await propose(theirs, "refund_invoice", SMALL_REFUND);
    await signInAs(page, mine.users.reviewer.email);
    const response = await page.goto(`/actions/${foreign.id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Nothing here" })).toBeVisible();
    await expect(page.getByText("INV-1043")).toHaveCount(0);
    expect((await page.goto("/actions/not-a-uuid"))?.status()).toBe(404);
    expect((await page.goto("/actions/00000000-0000-0000-0000-000000000000"))?.status()).toBe(404);
    expect(await e2eDb().decision.count({ where: { actionId: foreign.id } })).toBe(0);
  });
});
