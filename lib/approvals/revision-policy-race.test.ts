import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { editAction } from "@/lib/approvals/edit-action";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";

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

let t: TestDatabase;
let c: TestTenant;
beforeAll(async () => {
  t = await createTestDatabase();
  c = await createTestTenant(t.db);
});
afterAll(async () => t?.drop());

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
