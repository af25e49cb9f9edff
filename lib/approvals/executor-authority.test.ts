import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { refusal } from "@/tests/refusal";
import { actInOrderBehindActionLock, whileActionLocked } from "@/tests/action-lock";
import { createTestTenant, type TestTenant, type TestUser } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { setMemberRoles } from "@/lib/members/set-member-roles";

/**
 * A member who runs an approval from the console must be allowed to decide in its tenant when the
 * claim runs, not only when the request passed the boundary: a reviewer role removed, or a user
 * disabled, in between — also while the execution waits for the action's lock — stops it.
 */

const t = setUpTestDatabase();

/** A refund approved by `tenant`'s reviewer; another member executes it in these tests, so the approval itself stays valid. */
async function approvedRefund(tenant: TestTenant, amountMinor: number) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Customer overpaid" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: tenant.users.reviewer.member });
  return p;
}

/** As the console route runs it: the member executes, and is the audit actor. */
function executeAs(tenant: TestTenant, member: TestUser, p: { actionId: string; payloadHash: string }) {
  return executeAction(t.db, {
    tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash,
    executor: { type: "member", userId: member.id, sessionId: null }, actor: { type: "user", id: member.id, label: member.email },
  });
}

async function removeReviewerRole(tenant: TestTenant, member: TestUser) {
  const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: member.id } });
  await setMemberRoles(t.db, {
    tenantId: tenant.id, membershipId: membership.id, roles: ["requester"],
    actor: { type: "user", id: tenant.users.admin.id, label: tenant.users.admin.email },
  });
}

/** Refused as `executor_not_allowed`, audited as the member's refused execution, and nothing else happened. */
async function expectRefusedAndUntouched(tenant: TestTenant, member: TestUser, p: { actionId: string }, amountMinor: number, error: unknown) {
  expect(error).toMatchObject({ code: "executor_not_allowed", status: 403 });
  const refused = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, actionId: p.actionId, type: "execution.refused" } });
  expect(refused).toEqual([expect.objectContaining({ status: "executor_not_allowed", outcome: "refused", actorType: "user", actorId: member.id })]);
  expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "approved", consumedAt: null });
  expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
  expect(await t.db.refund.count({ where: { tenantId: tenant.id, amountMinor } })).toBe(0);
}

describe("a member executing an approval", () => {
  it("is refused once their reviewer role was removed; the approval stays unused, and a reviewer can still run it", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, 1_101);
    await removeReviewerRole(tenant, tenant.users.reviewer2);
    await expectRefusedAndUntouched(tenant, tenant.users.reviewer2, p, 1_101, await refusal(executeAs(tenant, tenant.users.reviewer2, p)));

    expect((await executeAs(tenant, tenant.users.reviewer3, p)).state).toBe("succeeded");
    expect(await t.db.refund.count({ where: { tenantId: tenant.id, amountMinor: 1_101 } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("is refused once their user was disabled", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, 1_102);
    await t.db.user.update({ where: { id: tenant.users.reviewer2.id }, data: { disabledAt: new Date() } });
    await expectRefusedAndUntouched(tenant, tenant.users.reviewer2, p, 1_102, await refusal(executeAs(tenant, tenant.users.reviewer2, p)));
  });

  it("a role removal that comes while the execution waits for the action's lock waits for the execution, never lands inside it (real concurrency against PostgreSQL)", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, 1_103);
    // The console request has passed the boundary (the member is a reviewer); another connection
    // holds the action's row, so the claim waits for it — holding the member's membership, which
    // it locked first (lock-acting-membership.ts), so the role change waits for the execution.
    const [executed, removed] = await actInOrderBehindActionLock(t.url, p.actionId,
      () => executeAs(tenant, tenant.users.reviewer2, p),
      () => removeReviewerRole(tenant, tenant.users.reviewer2));
    expect(executed).toMatchObject({ status: "fulfilled", value: { state: "succeeded" } });
    expect(removed).toMatchObject({ status: "fulfilled" });
    expect(await t.db.refund.count({ where: { tenantId: tenant.id, amountMinor: 1_103 } })).toBe(1);
    // In that order in the record: the execution began while they were a reviewer, then the change.
    const events = await t.db.auditEvent.findMany({
      where: { tenantId: tenant.id, type: { in: ["execution.started", "member.roles_changed"] } }, orderBy: { id: "asc" }, select: { type: true },
    });
    expect(events.map((e) => e.type)).toEqual(["execution.started", "member.roles_changed"]);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, actionId: p.actionId, type: "execution.refused" } })).toBe(0);
  });
});

describe("an approval of an action a member requested", () => {
  /** As a task runs it: the requester's own approved action. */
  const executeForRequester = (tenant: TestTenant, p: { actionId: string; payloadHash: string }) =>
    executeAction(t.db, {
      tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" },
      actor: { type: "agent", id: "task", label: `agent for ${tenant.users.requester.email}` },
    });

  async function expectRequesterRefused(tenant: TestTenant, p: { actionId: string }, amountMinor: number, error: unknown) {
    expect(error).toMatchObject({ code: "requester_inactive", status: 409 });
    expect((error as Error).message).toMatch(/no longer an active member/);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, actionId: p.actionId, type: "execution.refused", status: "requester_inactive" } })).toBe(1);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "approved", consumedAt: null });
    expect(await t.db.refund.count({ where: { tenantId: tenant.id, amountMinor } })).toBe(0);
  }

  it("is not used once the requester's user is disabled, or they may no longer start tasks; it is used again once they may", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, 1_201);
    const q = await approvedRefund(tenant, 1_202);
    await t.db.user.update({ where: { id: tenant.users.requester.id }, data: { disabledAt: new Date() } });
    await expectRequesterRefused(tenant, p, 1_201, await refusal(executeForRequester(tenant, p)));

    await t.db.user.update({ where: { id: tenant.users.requester.id }, data: { disabledAt: null } });
    const membership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.requester.id } });
    await t.db.membership.update({ where: { id: membership.id }, data: { roles: ["auditor"] } });
    await expectRequesterRefused(tenant, q, 1_202, await refusal(executeForRequester(tenant, q)));

    await t.db.membership.update({ where: { id: membership.id }, data: { roles: ["requester"] } });
    expect((await executeForRequester(tenant, q)).state).toBe("succeeded");
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("is refused when the requester is disabled while the execution waits for the action's lock (real concurrency against PostgreSQL)", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, 1_203);
    const executing = await whileActionLocked(t.url, p.actionId, async (waiters) => {
      const run = executeForRequester(tenant, p).then((executed) => ({ executed }), (error: unknown) => ({ error }));
      await waiters(1);
      await t.db.user.update({ where: { id: tenant.users.requester.id }, data: { disabledAt: new Date() } });
      return { run }; // not awaited here: it waits for the lock this holds
    });
    const outcome = await executing.run;
    expect(outcome).toHaveProperty("error");
    await expectRequesterRefused(tenant, p, 1_203, "error" in outcome ? outcome.error : null);
  });
});
