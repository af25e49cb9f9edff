import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { whileHolding } from "@/tests/action-lock";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { setAgentsPause } from "@/lib/agents-pause/set-agents-pause";
import { setApiKeyPause } from "@/lib/agents-pause/set-api-key-pause";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction, idempotencyKeyFor, type ExecutionOutcome } from "@/lib/approvals/execute-action";
import { proposeAction, type ProposeInput } from "@/lib/approvals/propose-action";
import { setMemberRoles } from "@/lib/members/set-member-roles";
import { agentsPauseGateSql } from "@/lib/db/statements/tenant/agent-pause-rules";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * What an execution rests on besides the approval itself — the proposing key not revoked, the stop
 * button not pressed for the tenant or the key, the requesting member still able to have agents act
 * for them — holds until the execution commits (real concurrency against PostgreSQL): a change
 * under way when the claim reaches it is waited for and refuses the execution, and a change that
 * comes while an execution is under way waits for it, so the log never shows an execution started
 * after the revocation or pause that should have held it.
 */

const t = setUpTestDatabase();

const adminOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });

async function agentKey(tenant: TestTenant) {
  const { apiKey } = await createApiKey(t.db, {
    tenantId: tenant.id, name: "refunds-agent", allowedTools: ["refund_invoice"], createdById: tenant.users.admin.id,
  });
  return { type: "api_key" as const, apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

/** A refund of `amountMinor` on INV-1044 proposed by `requester` and approved by the tenant's reviewer. */
async function approvedRefund(tenant: TestTenant, requester: ProposeInput["requester"], amountMinor: number) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: amountMinor, reason: "Duplicate charge" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, verdict: "approve", reviewer: tenant.users.reviewer.member });
  return p;
}

/** As the agent API (or a task, for a member's action) runs its own approved action; the outcome or the error, never a rejection. */
function execute(tenant: TestTenant, p: { actionId: string; payloadHash: string }): Promise<{ outcome?: ExecutionOutcome; error?: unknown }> {
  return executeAction(t.db, {
    tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" },
    actor: { type: "agent", id: "agent", label: "agent" },
  }).then((outcome) => ({ outcome }), (error: unknown) => ({ error }));
}

async function expectRefusedAndUnused(tenant: TestTenant, p: { actionId: string }, amountMinor: number, run: { error?: unknown }, code: string) {
  expect(run.error).toMatchObject({ code });
  expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, actionId: p.actionId, type: "execution.refused", status: code } })).toBe(1);
  expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "approved", consumedAt: null });
  expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
  expect(await t.db.refund.count({ where: { tenantId: tenant.id, amountMinor } })).toBe(0);
}

describe("a change under way when an execution's claim reaches it", () => {
  it("the key's revocation: the execution waits for it, then is refused and the approval stays unused", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_101);
    const executing = await whileHolding(t.url, [[`UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1`, [key.apiKeyId]]], async (waiters) => {
      const run = execute(tenant, p);
      await waiters(1);
      return { run };
    });
    await expectRefusedAndUnused(tenant, p, 2_101, await executing.run, "api_key_revoked");
  });

  it("the key's pause: the execution waits for it, then is held", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_102);
    const executing = await whileHolding(t.url, [[`UPDATE "ApiKey" SET "pausedAt" = now() WHERE id = $1`, [key.apiKeyId]]], async (waiters) => {
      const run = execute(tenant, p);
      await waiters(1);
      return { run };
    });
    await expectRefusedAndUnused(tenant, p, 2_102, await executing.run, "agents_paused");
  });

  it("the tenant's stop button: the execution waits for it, then is held — also for a member's action", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_103);
    const q = await approvedRefund(tenant, tenant.requester, 2_104);
    // A pause under way, as set-agents-paused.ts writes one: the stop button's gate held, the row written.
    const gate = Prisma.sql`SELECT ${agentsPauseGateSql(Prisma.sql`${tenant.id}::uuid`, "exclusive")}`;
    const pausing: Array<[string, unknown[]]> = [[gate.text, gate.values], [`UPDATE "Tenant" SET "agentsPausedAt" = now() WHERE id = $1`, [tenant.id]]];
    const executing = await whileHolding(t.url, pausing, async (waiters) => {
      const runs = [execute(tenant, p), execute(tenant, q)];
      await waiters(2);
      return { runs };
    });
    const [byKey, byMember] = await Promise.all(executing.runs);
    await expectRefusedAndUnused(tenant, p, 2_103, byKey, "agents_paused");
    await expectRefusedAndUnused(tenant, q, 2_104, byMember, "agents_paused");
  });

  it("the requesting member's role change: the execution waits for it before it locks the action, then is refused", async () => {
    const tenant = await createTestTenant(t.db);
    const p = await approvedRefund(tenant, tenant.requester, 2_105);
    const executing = await whileHolding(
      t.url,
      [[`UPDATE "Membership" SET roles = '{auditor}' WHERE "tenantId" = $1 AND "userId" = $2`, [tenant.id, tenant.users.requester.id]]],
      async (waiters) => {
        const run = execute(tenant, p);
        await waiters(1);
        // It waits holding nothing of the action's: a vote on it is not held up behind the role change.
        const locked = await t.db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'Action' AND l.locktype = 'tuple'`,
        );
        expect(locked[0].n).toBe(0);
        return { run };
      },
    );
    await expectRefusedAndUnused(tenant, p, 2_105, await executing.run, "requester_inactive");
  });
});

describe("a change that comes while an execution is under way", () => {
  /**
   * Runs `change` while an execution of `p` has claimed its approval and is writing its effect: a
   * refund row with the execution's own idempotency key, written and not committed by another
   * connection, holds the effect's insert until that row is rolled back. The change must queue
   * behind the execution; then the execution finishes, and the change after it.
   */
  async function changeDuringExecution(tenant: TestTenant, p: { actionId: string; payloadHash: string }, change: () => Promise<unknown>) {
    const otherInvoice = await t.db.invoice.findFirstOrThrow({ where: { tenantId: tenant.id, number: "INV-1042" } });
    const held = await whileHolding(
      t.url,
      [[
        `INSERT INTO "Refund" (id, "tenantId", "invoiceId", "amountMinor", reason, "idempotencyKey", "actionId") VALUES (gen_random_uuid(), $1, $2, 1, 'held', $3, $4)`,
        [tenant.id, otherInvoice.id, idempotencyKeyFor(p.actionId, 1, p.payloadHash), p.actionId],
      ]],
      async (waiters) => {
        const run = execute(tenant, p);
        await waiters(1);
        expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId }, select: { status: true } })).toEqual({ status: "approved" });
        const changing = change().then(() => "done", (error: unknown) => error);
        await waiters(2); // the change waits for the execution, which waits for this connection
        return { run, changing };
      },
      { end: "ROLLBACK" },
    );
    expect((await held.run).outcome).toMatchObject({ state: "succeeded" });
    expect(await held.changing).toBe("done");
  }

  const order = async (tenant: TestTenant, types: string[]) =>
    (await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: { in: types } }, orderBy: { id: "asc" }, select: { type: true } })).map((e) => e.type);

  it("the key's revocation waits for it: the log has the execution, then the revocation", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_106);
    await changeDuringExecution(tenant, p, () => revokeApiKey(t.db, { tenantId: tenant.id, id: key.apiKeyId, actor: adminOf(tenant) }));
    expect(await order(tenant, ["execution.started", "execution.succeeded", "api_key.revoked"])).toEqual(["execution.started", "execution.succeeded", "api_key.revoked"]);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("the key's pause and the tenant's stop button wait for it", async () => {
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_107);
    await changeDuringExecution(tenant, p, () => setApiKeyPause(t.db, { tenantId: tenant.id, id: key.apiKeyId, paused: true, actor: adminOf(tenant) }));
    const q = await approvedRefund(tenant, tenant.requester, 2_108);
    await changeDuringExecution(tenant, q, () => setAgentsPause(t.db, { tenantId: tenant.id, paused: true, reason: "incident", actor: adminOf(tenant) }));
    expect(await order(tenant, ["execution.succeeded", "api_key.paused", "tenant.agents_paused"])).toEqual([
      "execution.succeeded", "api_key.paused", "execution.succeeded", "tenant.agents_paused",
    ]);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("a reviewer's demotion and the stop button, pressed while an execution holds its action, wait in turn — no deadlock", async () => {
    // The execution holds the action and will want the tenant's row; the demotion holds every admin's
    // membership and wants the action (to reopen the reviewer's approval); the pause wants an admin's
    // membership before the tenant's row. Were the pause to hold the tenant's row while it waited,
    // the three would wait for each other and PostgreSQL would fail one of them.
    const tenant = await createTestTenant(t.db);
    const key = await agentKey(tenant);
    const p = await approvedRefund(tenant, key, 2_109);
    const reviewerMembership = await t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.reviewer.id } });
    const settle = (promise: Promise<unknown>) => promise.then(() => "done", (error: unknown) => error);
    const held = await whileHolding(t.url, [[`SELECT 1 FROM "Invoice" WHERE "tenantId" = $1 AND number = 'INV-1044' FOR UPDATE`, [tenant.id]]], async (waiters) => {
      const run = execute(tenant, p);
      await waiters(1); // holding the action, waiting for the invoice
      const demoting = settle(setMemberRoles(t.db, { tenantId: tenant.id, membershipId: reviewerMembership.id, roles: ["requester"], actor: adminOf(tenant) }));
      await waiters(2);
      const pausing = settle(setAgentsPause(t.db, { tenantId: tenant.id, paused: true, reason: "incident", actor: adminOf(tenant) }));
      await waiters(3);
      return { run, demoting, pausing };
    });
    expect((await held.run).outcome).toMatchObject({ state: "succeeded" });
    expect(await held.demoting).toBe("done");
    expect(await held.pausing).toBe("done");
    // The execution went first: the demotion found the approval used (nothing to reopen), and the pause came last.
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId }, select: { status: true } })).toEqual({ status: "succeeded" });
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.reopened" } })).toBe(0);
    expect(await order(tenant, ["execution.succeeded", "tenant.agents_paused"])).toEqual(["execution.succeeded", "tenant.agents_paused"]);
    expect((await t.db.membership.findUniqueOrThrow({ where: { id: reviewerMembership.id } })).roles).toEqual(["requester"]);
  });

  it("a member's execution of an admin's action and a role change of the executor wait in turn, whatever the memberships' order — no deadlock", async () => {
    // The execution holds its executor's and its requester's memberships, the role change every
    // admin's and its target's: both in id order, or one would hold what the other waits for. Here
    // the target (the executor) sorts before the admin who requested the action.
    const tenant = await createTestTenant(t.db);
    const [executorMembership, adminMembership] = await Promise.all([
      t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.reviewer.id } }),
      t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.admin.id } }),
    ]);
    const [low, high] = ["00000000-0000-4000-8000-000000000001", "ffffffff-ffff-4fff-bfff-fffffffffffe"];
    await t.db.membership.update({ where: { id: executorMembership.id }, data: { id: low } });
    await t.db.membership.update({ where: { id: adminMembership.id }, data: { id: high, roles: ["admin", "requester"] } });
    const admin = tenant.users.admin;
    const p = await proposeAction(t.db, {
      tenantId: tenant.id, requester: { type: "user", userId: admin.id, label: admin.email, roles: ["admin", "requester"] }, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 2_110, reason: "Duplicate charge" },
    });
    if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
    await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, verdict: "approve", reviewer: tenant.users.reviewer2.member });

    const settle = (promise: Promise<unknown>) => promise.then(() => "done", (error: unknown) => error);
    const held = await whileHolding(t.url, [[`SELECT 1 FROM "Membership" WHERE id = $1 FOR NO KEY UPDATE`, [high]]], async (waiters) => {
      const changing = settle(setMemberRoles(t.db, { tenantId: tenant.id, membershipId: low, roles: ["reviewer", "auditor"], actor: adminOf(tenant) }));
      await waiters(1);
      const run = executeAction(t.db, {
        tenantId: tenant.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "member", userId: tenant.users.reviewer.id, sessionId: null },
        actor: { type: "user", id: tenant.users.reviewer.id, label: tenant.users.reviewer.email },
      }).then((outcome) => outcome.state, (error: unknown) => error);
      await waiters(2);
      return { changing, run };
    });
    expect(await held.changing).toBe("done");
    expect(await held.run).toBe("succeeded");
  });
});
