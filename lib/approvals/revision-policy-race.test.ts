import { describe, expect, it, vi } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { editAction } from "@/lib/approvals/edit-action";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { setMemberRoles } from "@/lib/members/set-member-roles";
import { refusal } from "@/tests/refusal";

/**
 * A policy saved while an edit's revision is being assessed: the revision's write refuses the
 * assessment made under the old policy, and the edit assesses again under the new one. The save
 * is made to land exactly there: after the edit read the policy, before it writes.
 */
const between = vi.hoisted(() => ({ save: null as null | (() => Promise<void>) }));
vi.mock("@/lib/approvals/assess-payload", async (original) => {
  const real = await original<typeof import("@/lib/approvals/assess-payload")>();
  return {
    ...real,
    assessPayload: async (...args: Parameters<typeof real.assessPayload>) => {
      const assessed = await real.assessPayload(...args);
      const save = between.save;
      between.save = null;
      if (save) await save();
      return assessed;
    },
  };
});

const t = setUpTestDatabase();
const c = setUpTestTenant(t);

describe("a revision and a policy saved meanwhile", () => {
  it("is written under the policy in force when it is written, not the one it was first assessed under", async () => {
    const args = { invoice_number: "INV-1044", amount_minor: 10_000, reason: "Customer overpaid" };
    const proposed = await proposeAction(t.db, { tenantId: c.id, requester: c.requester, tool: "refund_invoice", args });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    // Saved by another connection (another process) while the edit below is being assessed.
    between.save = async () => {
      const paused = {
        ...DEFAULT_POLICY, version: 2,
        tools: { ...DEFAULT_POLICY.tools, refund_invoice: { rules: [{ id: "refunds-paused", effect: "deny", tier: "critical", reason: "Refunds are paused." }] } },
      };
      await t.db.toolPolicy.create({ data: { tenantId: c.id, version: 2, document: paused as never } });
    };
    const next = await editAction(t.db, {
      tenantId: c.id, actionId: proposed.actionId, editor: c.users.reviewer.member, payloadHash: proposed.payloadHash,
      args: { ...args, amount_minor: 9_000 },
    });
    expect(between.save).toBeNull(); // the save happened, mid-edit
    expect(next).toMatchObject({ revision: 2, status: "denied" });
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: proposed.actionId, revision: 2 } });
    expect(revision.policyVersion).toBe(2);
    expect(await t.db.actionRevision.count({ where: { actionId: proposed.actionId } })).toBe(2);
    expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: "action.revised" } })).toBe(1);
  });
});

describe("what else may change while an edit's revision is being assessed", () => {
  const args = { invoice_number: "INV-1044", amount_minor: 10_000, reason: "Customer overpaid" };
  const admin = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });
  const membershipOf = (tenant: TestTenant, userId: string) => t.db.membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId } });

  it("the window closing meanwhile: the edit is refused as expired and writes nothing, though it was open when the edit began", async () => {
    const tenant = await createTestTenant(t.db);
    const proposed = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    // Open when the edit begins (it reaches its first check in milliseconds), closed before it writes.
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() + interval '3 seconds' WHERE id = ${proposed.actionId}::uuid`;
    const { expiresAt } = await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } });
    between.save = async () => {
      while (Date.now() <= expiresAt!.getTime() + 100) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    const error = await refusal(editAction(t.db, {
      tenantId: tenant.id, actionId: proposed.actionId, editor: tenant.users.reviewer.member, payloadHash: proposed.payloadHash,
      args: { ...args, amount_minor: 9_000 },
    }));
    expect(between.save).toBeNull();
    expect(error).toMatchObject({ code: "expired", status: 409 });
    expect(await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } })).toMatchObject({ status: "pending", currentRevision: 1, expiresAt });
    expect(await t.db.actionRevision.count({ where: { actionId: proposed.actionId } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "action.edit_refused", status: "expired" } })).toBe(1);
  });

  it("the requester's roles changing meanwhile: the revision is assessed again with their roles as they are now", async () => {
    const tenant = await createTestTenant(t.db);
    const proposed = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    const requesterMembership = await membershipOf(tenant, tenant.users.requester.id);
    let assessments = 0;
    between.save = async () => {
      await setMemberRoles(t.db, { tenantId: tenant.id, membershipId: requesterMembership.id, roles: ["requester", "auditor"], actor: admin(tenant) });
    };
    const counting = vi.spyOn(await import("@/lib/approvals/assess-payload"), "assessPayload");
    try {
      const next = await editAction(t.db, {
        tenantId: tenant.id, actionId: proposed.actionId, editor: tenant.users.reviewer.member, payloadHash: proposed.payloadHash,
        args: { ...args, amount_minor: 9_000 },
      });
      assessments = counting.mock.calls.length;
      expect(next).toMatchObject({ revision: 2, status: "pending" });
    } finally {
      counting.mockRestore();
    }
    expect(between.save).toBeNull();
    // Assessed with ["requester"], refused at the write (the roles changed), assessed again.
    expect(assessments).toBe(2);
  });

  it("the editor's demotion meanwhile: it waits for the edit under way, which is written first by a member who could still edit", async () => {
    const tenant = await createTestTenant(t.db);
    const proposed = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    const editorMembership = await membershipOf(tenant, tenant.users.reviewer.id);
    let demotion: Promise<unknown> | null = null;
    between.save = async () => {
      demotion = setMemberRoles(t.db, { tenantId: tenant.id, membershipId: editorMembership.id, roles: ["requester"], actor: admin(tenant) })
        .then(() => "done", (error: unknown) => error);
      // The demotion queues for the editor's membership, which the edit holds: it cannot land inside the edit.
      await expect.poll(async () => (await t.db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0 AND query LIKE '%"Membership"%'`)[0].n,
      { timeout: 30_000, interval: 20 }).toBe(1);
    };
    const next = await editAction(t.db, {
      tenantId: tenant.id, actionId: proposed.actionId, editor: tenant.users.reviewer.member, payloadHash: proposed.payloadHash,
      args: { ...args, amount_minor: 9_000 },
    });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    expect(await demotion).toBe("done");
    const order = await t.db.auditEvent.findMany({
      where: { tenantId: tenant.id, type: { in: ["action.revised", "member.roles_changed"] } }, orderBy: { id: "asc" }, select: { type: true },
    });
    expect(order.map((e) => e.type)).toEqual(["action.revised", "member.roles_changed"]);
  });
});
