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
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { loadActionView } from "@/lib/api/load-action-view";

/**
 * An approved action whose approvals stop counting before it runs goes back to the review queue
 * (action.reopened), in the transaction that made them stop counting — not left approved where
 * no claim would run it and no reviewer would see it.
 */

const t = setUpTestDatabase();

async function approvedRefund(tenant: TestTenant, invoice: string, by: TestUser) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: 1_000, reason: "Goods returned" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  expect(await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: by.member }))
    .toMatchObject({ status: "approved" });
  return p;
}

const execute = (tenant: TestTenant, p: { actionId: string; payloadHash: string }) =>
  executeAction(t.db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, actor: { type: "system", label: "test executor" }, executor: { type: "requester" } });

const statusOf = async (actionId: string) => (await t.db.action.findUniqueOrThrow({ where: { id: actionId } })).status;
const reopenedEvents = (actionId: string) => t.db.auditEvent.findMany({ where: { actionId, type: "action.reopened" }, orderBy: { id: "asc" } });
const admin = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });
const membershipOf = (tenant: TestTenant, u: TestUser) => t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: u.id } });

describe("approvals that stop counting", () => {
  it("a member who loses their reviewer role puts the unexecuted actions they approved back in review; executed ones and others' approvals stay", async () => {
    const a = await createTestTenant(t.db);
    const theirs = await approvedRefund(a, "INV-1044", a.users.reviewer);
    const ran = await approvedRefund(a, "INV-1043", a.users.reviewer);
    expect((await execute(a, ran)).state).toBe("succeeded");
    const someoneElses = await approvedRefund(a, "INV-1044", a.users.reviewer2);

    await setMemberRoles(t.db, { tenantId: a.id, membershipId: (await membershipOf(a, a.users.reviewer)).id, roles: ["requester"], actor: admin(a) });

    expect(await statusOf(theirs.actionId)).toBe("pending");
    const action = await t.db.action.findUniqueOrThrow({ where: { id: theirs.actionId } });
    expect(action.decidedAt).toBeNull();
    expect(action.statusReason).toMatch(new RegExp(`${a.users.reviewer.email}'s approval no longer counts.*\\(0 of 1 approvals still count\\.\\)`));
    const [event] = await reopenedEvents(theirs.actionId);
    expect(event).toMatchObject({ outcome: "ok", status: "pending", actorId: a.users.admin.id });
    expect(event.data).toEqual({ revision: 1, cause: "roles_removed", member: a.users.reviewer.email, approvals: 0, quorum: 1 });
    expect(await statusOf(ran.actionId)).toBe("succeeded");
    expect(await statusOf(someoneElses.actionId)).toBe("approved");
    expect(await reopenedEvents(ran.actionId)).toHaveLength(0);
    expect(await reopenedEvents(someoneElses.actionId)).toHaveLength(0);

    // The action page shows the vote as no longer counting; nothing runs it until someone approves it again.
    const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer2.id, roles: ["reviewer"] }, theirs.actionId);
    expect(detail).toMatchObject({ status: "pending", approvals: 0 });
    expect(detail!.decisions.map((d) => ({ reviewerId: d.reviewerId, counts: d.counts }))).toEqual([{ reviewerId: a.users.reviewer.id, counts: false }]);
    const queue = await listReviewQueue(t.db, { tenantId: a.id, userId: a.users.reviewer2.id, roles: ["reviewer"] });
    expect(queue.items.find((item) => item.id === theirs.actionId)).toMatchObject({ approvals: 0, quorum: 1 });
    expect(await loadActionView(t.db, { tenantId: a.id, actionId: theirs.actionId, apiKeyId: null })).toMatchObject({ state: "pending", approvals: 0, quorum: 1 });
    expect(await refusal(execute(a, theirs))).toMatchObject({ code: "not_executable.pending" });
    expect(await decideAction(t.db, { tenantId: a.id, actionId: theirs.actionId, verdict: "approve", payloadHash: theirs.payloadHash, reviewer: a.users.reviewer2.member }))
      .toMatchObject({ status: "approved", approvals: 1 });
    expect((await execute(a, theirs)).state).toBe("succeeded");
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("a role given back approves again what the member had approved and the removal reopened: audited, and the claim runs it", async () => {
    const a = await createTestTenant(t.db);
    const theirs = await approvedRefund(a, "INV-1044", a.users.reviewer);
    const membership = await membershipOf(a, a.users.reviewer);
    await setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["requester"], actor: admin(a) });
    expect(await statusOf(theirs.actionId)).toBe("pending");
    // Their vote does not count, and they may not cast another while they cannot decide.
    expect(await refusal(decideAction(t.db, { tenantId: a.id, actionId: theirs.actionId, verdict: "approve", payloadHash: theirs.payloadHash, reviewer: a.users.reviewer.member })))
      .toMatchObject({ code: "not_eligible" });

    // A role that does not decide changes nothing; the reviewer role given back approves it again.
    await setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["auditor", "requester"], actor: admin(a) });
    expect(await statusOf(theirs.actionId)).toBe("pending");
    await setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["requester", "reviewer"], actor: admin(a) });
    const action = await t.db.action.findUniqueOrThrow({ where: { id: theirs.actionId } });
    expect(action.status).toBe("approved");
    expect(action.decidedAt).not.toBeNull();
    expect(action.statusReason).toMatch(new RegExp(`${a.users.reviewer.email}'s reviewer roles were given back.*\(1 of 1 approvals count\.\)`));
    const reapproved = await t.db.auditEvent.findMany({ where: { actionId: theirs.actionId, type: "action.reapproved" } });
    expect(reapproved).toHaveLength(1);
    expect(reapproved[0]).toMatchObject({ outcome: "ok", status: "approved", actorId: a.users.admin.id, verdict: "approve", reviewerId: a.users.reviewer.id });
    expect(reapproved[0].data).toEqual({ revision: 1, cause: "roles_restored", member: a.users.reviewer.email, approvals: 1, quorum: 1 });
    // Their one vote counts again, so a second is refused; the approval runs.
    expect(await refusal(decideAction(t.db, { tenantId: a.id, actionId: theirs.actionId, verdict: "approve", payloadHash: theirs.payloadHash, reviewer: a.users.reviewer.member })))
      .toMatchObject({ code: "not_pending" });
    expect((await execute(a, theirs)).state).toBe("succeeded");
    // Giving the role back again later touches nothing that ran.
    await setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["requester"], actor: admin(a) });
    await setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["requester", "reviewer"], actor: admin(a) });
    expect(await statusOf(theirs.actionId)).toBe("succeeded");
    expect(await t.db.auditEvent.count({ where: { actionId: theirs.actionId, type: "action.reapproved" } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("an approver disabled outside the console: the claim finds no quorum, refuses, and puts the action back in review in the same transaction", async () => {
    const a = await createTestTenant(t.db);
    const p = await approvedRefund(a, "INV-1044", a.users.reviewer);
    await t.db.user.update({ where: { id: a.users.reviewer.id }, data: { disabledAt: new Date() } });

    const error = await refusal(execute(a, p));
    expect(error).toMatchObject({ code: "no_quorum", status: 409 });
    expect(error.message).toMatch(/back in the review queue/);
    expect(await statusOf(p.actionId)).toBe("pending");
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
    const [event] = await reopenedEvents(p.actionId);
    expect(event.data).toEqual({ revision: 1, cause: "quorum_lost", approvals: 0, quorum: 1 });
    expect(await t.db.auditEvent.count({ where: { actionId: p.actionId, type: "execution.refused", status: "no_quorum" } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  });

  it("a role removal racing an execution: the action either runs or goes back to review, never both", async () => {
    const a = await createTestTenant(t.db);
    const p = await approvedRefund(a, "INV-1044", a.users.reviewer);
    const membership = await membershipOf(a, a.users.reviewer);
    // Hold the action's row so both the claim and the role change's reopen queue up behind it.
    const both = await whileActionLocked(t.url, p.actionId, async (waiters) => {
      const run = execute(a, p).then((o) => ({ ran: o.state }), (e: { code?: string }) => ({ refused: e.code }));
      const demote = setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles: ["requester"], actor: admin(a) });
      await waiters(2);
      return { both: Promise.all([run, demote]) }; // not awaited here: they wait for the lock this holds
    });
    const [outcome] = await both.both;
    const executions = await t.db.execution.count({ where: { actionId: p.actionId } });
    const reopened = (await reopenedEvents(p.actionId)).length;
    expect(executions + reopened).toBe(1);
    if ("ran" in outcome) expect(await statusOf(p.actionId)).toBe("succeeded");
    else expect(await statusOf(p.actionId)).toBe("pending");
  });
});

describe("approvals that stop counting, against concurrent votes (real concurrency against PostgreSQL)", () => {
  it("a vote and the removal of the voter's role at once never leave an action approved on a vote that does not count", async () => {
    const a = await createTestTenant(t.db);
    const membership = await membershipOf(a, a.users.reviewer);
    const setRoles = (roles: ("reviewer" | "requester")[]) =>
      setMemberRoles(t.db, { tenantId: a.id, membershipId: membership.id, roles, actor: admin(a) });
    const outcomes = new Set<string>();
    for (let round = 0; round < 12; round++) {
      const p = await proposeAction(t.db, {
        tenantId: a.id, requester: a.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 2_000 + round, reason: "Goods returned" },
      });
      if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
      const [vote] = await Promise.allSettled([
        decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member }),
        setRoles(["requester"]),
      ]);
      const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
      // Whichever went first: the vote refused, or counted and then withdrawn — never approved on it.
      expect(action.status, `round ${round}`).toBe("pending");
      const reopened = (await reopenedEvents(p.actionId)).length;
      outcomes.add(vote.status === "fulfilled" ? `counted, then reopened (${reopened})` : `refused (${reopened})`);
      if (vote.status === "fulfilled") expect(reopened).toBe(1);
      else expect(reopened).toBe(0);
      await setRoles(["reviewer"]);
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe("an approval that stops counting after its window closed", () => {
  it("is not reopened by a demotion that waited for the action's lock past the window, though it began before", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, "INV-1044", tenant.users.reviewer);
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() + interval '3 seconds' WHERE id = ${p.actionId}::uuid`;
    const { expiresAt } = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
    const membership = await membershipOf(tenant, tenant.users.reviewer);
    const queued = await whileActionLocked(t.url, p.actionId, async (waiters) => {
      const run = setMemberRoles(t.db, { tenantId: tenant.id, membershipId: membership.id, roles: ["requester"], actor: admin(tenant) })
        .then(() => null, (error: unknown) => error);
      await waiters(1);
      expect(Date.now()).toBeLessThan(expiresAt!.getTime());
      while (Date.now() <= expiresAt!.getTime() + 100) await new Promise((resolve) => setTimeout(resolve, 50));
      return { run };
    });
    expect(await queued.run).toBeNull();
    // Left for the sweeper to mark expired; no reviewer is asked to look again at what can no longer run.
    expect(await statusOf(p.actionId)).toBe("approved");
    expect(await reopenedEvents(p.actionId)).toHaveLength(0);
  });
});

describe("lock order: memberships before actions (real concurrency against PostgreSQL)", () => {
  // An admin who also reviews acts on an action while a role change of another reviewer, who
  // approved it, is under way. The role change locks memberships, then the actions; if the act
  // took the action first and the admin's membership after, each would wait for the other and
  // PostgreSQL would fail one of them as a deadlock. Both must finish, in some order.
  async function adminWhoReviews(tenant: TestTenant) {
    await t.db.membership.update({ where: { id: (await membershipOf(tenant, tenant.users.admin)).id }, data: { roles: ["admin", "reviewer"] } });
    return { userId: tenant.users.admin.id, label: tenant.users.admin.email, roles: ["admin", "reviewer"] as ("admin" | "reviewer")[], sessionId: null };
  }
  const demoteToRequester = (tenant: TestTenant, membershipId: string) =>
    setMemberRoles(t.db, { tenantId: tenant.id, membershipId, roles: ["requester"], actor: admin(tenant) });

  it("the admin's vote and their removal of the other approver's role both finish: approved on two votes, then back in review", async () => {
    const a = await createTestTenant(t.db);
    const reviewingAdmin = await adminWhoReviews(a);
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 150_000, reason: "Goods returned" },
    });
    if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
    expect(await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member }))
      .toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
    const membership = await membershipOf(a, a.users.reviewer);
    const [vote, demote] = await actInOrderBehindActionLock(t.url, p.actionId,
      () => decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: reviewingAdmin }),
      () => demoteToRequester(a, membership.id));
    expect(vote).toMatchObject({ status: "fulfilled", value: { status: "approved" } });
    expect(demote).toMatchObject({ status: "fulfilled", value: { changed: true } });
    // The vote went first (it held the admin's membership); the role change then withdrew the other approval.
    expect(await statusOf(p.actionId)).toBe("pending");
    expect(await reopenedEvents(p.actionId)).toHaveLength(1);
  });

  it("the admin's execution and their removal of the approver's role both finish: it runs, and nothing is reopened", async () => {
    const a = await createTestTenant(t.db);
    const reviewingAdmin = await adminWhoReviews(a);
    const p = await approvedRefund(a, "INV-1044", a.users.reviewer);
    const membership = await membershipOf(a, a.users.reviewer);
    const [run, demote] = await actInOrderBehindActionLock(t.url, p.actionId,
      () => executeAction(t.db, {
        tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash,
        actor: { type: "user", id: reviewingAdmin.userId, label: reviewingAdmin.label }, executor: { type: "member", userId: reviewingAdmin.userId, sessionId: null },
      }),
      () => demoteToRequester(a, membership.id));
    expect(run).toMatchObject({ status: "fulfilled", value: { state: "succeeded" } });
    expect(demote).toMatchObject({ status: "fulfilled", value: { changed: true } });
    expect(await statusOf(p.actionId)).toBe("succeeded");
    expect(await reopenedEvents(p.actionId)).toHaveLength(0);
  });
});
