import { expect, type Page } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import type { Requester } from "@/lib/approvals/actors";
import type { Role } from "@/lib/generated/prisma/enums";
import { hashPassword } from "@/lib/auth/password";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD, type TestTenant } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";

export { TEST_PASSWORD, seedTenant, e2eDb, type TestTenant };

export const SMALL_REFUND = { invoice_number: "INV-1043", amount_minor: 45_000, reason: "Customer returned the goods" };
export const LARGE_REFUND = { invoice_number: "INV-1044", amount_minor: 1_200_000, reason: "Duplicate payment" };

/** Proposes an action straight through the approval core and returns its id (it must wait for review). */
export async function propose(
  tenant: TestTenant,
  tool: string,
  args: Record<string, unknown>,
  options: { requester?: Requester; reason?: string; stepKey?: string } = {},
): Promise<{ id: string; payloadHash: string }> {
  const outcome = await proposeAction(e2eDb(), {
    tenantId: tenant.id, requester: options.requester ?? tenant.requester, tool, args,
    reason: options.reason ?? "Because the customer asked", stepKey: options.stepKey ?? null,
  });
  expect(outcome.state, JSON.stringify(outcome)).toBe("pending");
  if (outcome.state !== "pending") throw new Error("not pending");
  return { id: outcome.actionId, payloadHash: outcome.payloadHash };
}

/** A member of the tenant with the given roles (unique email), signed in on `page` if given. */
export async function addMember(tenant: TestTenant, name: string, roles: Role[]) {
  const db = e2eDb();
  const email = `${name}-${Math.random().toString(16).slice(2, 10)}@${tenant.slug}.test`;
  const user = await db.user.create({ data: { email, name, passwordHash: await hashPassword(TEST_PASSWORD) } });
  await db.membership.create({ data: { tenantId: tenant.id, userId: user.id, roles } });
  const requester: Requester = { type: "user", userId: user.id, label: email, roles };
  return { id: user.id, email, requester };
}

export async function signInAs(page: Page, email: string) {
  await signIn(page, email, TEST_PASSWORD);
}

/**
 * Waits until the queue takes keys: the server's HTML shows the rows before the page's script runs,
 * and a key pressed then does nothing.
 */
export async function queueTakesKeys(page: Page) {
  await expect(page.getByRole("list", { name: "Pending actions" })).toHaveAttribute("aria-keyshortcuts", /\bj\b/);
}

export async function actionRow(id: string) {
  return e2eDb().action.findUniqueOrThrow({ where: { id }, include: { decisions: true } });
}

/** The action page's decision form. */
export const decisionForm = (page: Page) => page.getByTestId("decision-form");

/** Approve on the action page, as a reviewer does: the button asks for a confirmation, whose Approve records the vote. */
export async function approveOnActionPage(page: Page) {
  await decisionForm(page).getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("dialog", { name: "Approve this action?" }).getByRole("button", { name: "Approve", exact: true }).click();
}
