import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { Client } from "pg";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revisionHash } from "@/lib/approvals/action-revision";
import type { JsonObject } from "@/lib/canonical/json-value";
import { AppError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { query } from "@/lib/db/sql";
import { findTool } from "@/lib/tools/registry";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The outside attack run's findings against the gate (issue 12, defects 1–3): places where a
 * guarantee was checked in one statement and relied on in another. Each test fails on the code
 * before the gate was made atomic.
 */
let outOfBand: Client;

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
beforeAll(async () => {
  outOfBand = new Client({ connectionString: t.url });
  await outOfBand.connect();
});
afterAll(async () => {
  await outOfBand?.end();
});

const actor = { type: "system" as const, label: "gate-test" };
const restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.splice(0)) undo();
});

/**
 * Right after the tool has read the live state for an execution, tries `change` on another
 * connection — one that waits at most 100 ms for a row lock — and the execution goes on only once
 * the change has ended, either way (a fixed pause could end, on a loaded machine, before the change
 * even reached the database). A gate that holds the state it checked until its effect commits makes
 * the change time out; without that, the change lands between the check and the effect.
 */
function interleaveAfterLiveRead(toolName: string, change: string, params: unknown[]): { result: () => Promise<{ ok: true } | { ok: false; code: string }> } {
  const tool = findTool(toolName) as ToolDefinition;
  const original = tool.snapshot;
  let pending: Promise<{ ok: true } | { ok: false; code: string }> | null = null;
  tool.snapshot = async (ctx, args) => {
    const live = await original(ctx, args);
    pending = (async () => {
      await outOfBand.query("BEGIN");
      try {
        await outOfBand.query("SET LOCAL lock_timeout = '100ms'");
        await outOfBand.query(change, params);
        await outOfBand.query("COMMIT");
        return { ok: true as const };
      } catch (error) {
        await outOfBand.query("ROLLBACK");
        return { ok: false as const, code: String((error as { code?: string }).code) };
      }
    })();
    await pending;
    return live;
  };
  restore.push(() => (tool.snapshot = original));
  return {
    result: async () => {
      if (!pending) throw new Error("the execution never re-read the state");
      return pending;
    },
  };
}

async function approvedRefund(tenant: TestTenant, amountMinor: number, invoice: string, reviewers = [tenant.users.reviewer]) {
  const p = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Gate integrity test" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  for (const reviewer of reviewers) {
    await decideAction(t.db, { tenantId: tenant.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: reviewer.member });
  }
  return p;
}

async function outcomeOf(promise: Promise<unknown>): Promise<{ ok: true } | { ok: false; code: string }> {
  try {
    await promise;
    return { ok: true };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, code: error.code };
    throw error;
  }
}

describe("effects are bound to the state the reviewers approved (defect 1)", () => {
  it.each(Array.from({ length: 8 }, (_, i) => i + 1))(
    "round %i: two different approved refunds on one invoice executed at once → one refund, the other re-queued as a fresh revision",
    async (round) => {
      const fresh = await createTestTenant(t.db);
      const first = await approvedRefund(fresh, 10_000 + round, "INV-1043");
      const second = await approvedRefund(fresh, 20_000 + round, "INV-1043");
      const outcomes = await Promise.all(
        [first, second].map((p) => outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor }))),
      );
      expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(1);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok).map((o) => (o as { code: string }).code)).toEqual(["state_changed"]);
      // The loser is not consumed and not failed: a fresh revision waits for reviewers, with the change shown.
      const actions = await t.db.action.findMany({ where: { tenantId: fresh.id, tool: "refund_invoice" }, orderBy: { createdAt: "asc" } });
      const loser = actions.find((row) => row.status !== "succeeded")!;
      expect(loser).toMatchObject({ status: "pending", currentRevision: 2, consumedAt: null });
      expect(await t.db.execution.count({ where: { tenantId: fresh.id, status: "failed" } })).toBe(0);
      const rev2 = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: loser.id, revision: 2 } });
      expect((rev2.diff as { fields: Array<{ path: string }> }).fields.map((f) => f.path)).toContain("snapshot.invoice.amount_refunded_minor");
    },
  );

  it("an invoice cancelled (paid amount cut) right after the gate re-read it cannot slip in before the refund", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await approvedRefund(fresh, 10_000, "INV-1044");
    const cut = interleaveAfterLiveRead(
      "refund_invoice",
      `UPDATE "Invoice" SET status = 'cancelled', "amountPaidMinor" = "amountPaidMinor" - 50000, version = version + 1
       WHERE "tenantId" = $1 AND number = 'INV-1044'`,
      [fresh.id],
    );
    const outcome = await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor }));
    // The invoice stayed as the reviewer saw it until the refund committed.
    expect(await cut.result()).toEqual({ ok: false, code: "55P03" });
    expect(outcome).toEqual({ ok: true });
    expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(1);
    expect(await t.db.invoice.findFirstOrThrow({ where: { tenantId: fresh.id, number: "INV-1044" } })).toMatchObject({
      status: "paid", amountPaidMinor: 1_200_000, amountRefundedMinor: 10_000,
    });
  });

  it("an opt-out that lands right after the gate re-read the customer cannot slip in before the email is queued", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await proposeAction(t.db, {
      tenantId: fresh.id, requester: fresh.requester, tool: "send_email",
      args: { to: "billing@acme.example", subject: "Reminder", body: "INV-1042 is overdue.", invoice_number: "INV-1042" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    await decideAction(t.db, { tenantId: fresh.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: fresh.users.reviewer.member });
    const optOut = interleaveAfterLiveRead(
      "send_email",
      `UPDATE "Customer" SET "optOut" = true, version = version + 1 WHERE "tenantId" = $1 AND "externalRef" = 'CUST-001'`,
      [fresh.id],
    );
    const outcome = await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor }));
    expect(await optOut.result()).toEqual({ ok: false, code: "55P03" });
    expect(outcome).toEqual({ ok: true });
    expect(await t.db.emailOutbox.count({ where: { tenantId: fresh.id } })).toBe(1);
  });

  it("a change that commits before the gate's re-read invalidates the approval and re-queues it; nothing is consumed or failed", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await approvedRefund(fresh, 10_000, "INV-1044");
    await t.db.invoice.updateMany({ where: { tenantId: fresh.id, number: "INV-1044" }, data: { status: "cancelled", version: { increment: 1 } } });
    expect(await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor })))
      .toEqual({ ok: false, code: "state_changed" });
    expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(0);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending", currentRevision: 2, consumedAt: null });
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
  });
});

describe("an effect that cannot be written leaves nothing half done", () => {
  function replaceApply(toolName: string, apply: ToolDefinition["apply"]) {
    const tool = findTool(toolName) as ToolDefinition;
    const original = tool.apply;
    tool.apply = apply;
    restore.push(() => (tool.apply = original));
  }

  it("when the effect's own guard finds the state moved, the claim is undone and a fresh revision is queued", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await approvedRefund(fresh, 10_000, "INV-1044");
    replaceApply("refund_invoice", async () => ({ stateChanged: "The invoice moved." }));
    expect(await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor })))
      .toEqual({ ok: false, code: "state_changed" });
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "pending", currentRevision: 2, consumedAt: null });
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
    expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(0);
  });

  const failingEffects: Array<[string, ToolDefinition["apply"]]> = [
    ["refuses in words", async () => {
      throw new AppError("effect_refused", "The ledger is closed for the night.", 409);
    }],
    ["fails inside the database, after writing", async (ctx) => {
      await query(ctx.q, Prisma.sql`UPDATE "Invoice" SET "amountRefundedMinor" = 1 WHERE "tenantId" = ${ctx.tenantId}::uuid`);
      await query(ctx.q, Prisma.sql`SELECT 1 / 0`);
      return { ok: true, result: {} };
    }],
  ];

  it.each(failingEffects)("when the effect %s, nothing it wrote stays, and the execution is recorded as failed once", async (_label, apply) => {
    const fresh = await createTestTenant(t.db);
    const p = await approvedRefund(fresh, 10_000, "INV-1044");
    replaceApply("refund_invoice", apply);
    const outcome = await executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor });
    expect(outcome.state).toBe("failed");
    const executions = await t.db.execution.findMany({ where: { actionId: p.actionId } });
    expect(executions.map((e) => e.status)).toEqual(["failed"]);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "failed" });
    expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(0);
    expect(await t.db.invoice.count({ where: { tenantId: fresh.id, amountRefundedMinor: { not: 0 } } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { actionId: p.actionId, type: "execution.started" } })).toBe(1);
  });
});

describe("execution rests on the decisions, not on a status column (defect 2)", () => {
  it("a pending action set to approved in the database, with no decision, does not execute", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 4_242, reason: "Forged approval" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    await t.db.$executeRaw`UPDATE "Action" SET status = 'approved' WHERE id = ${p.actionId}::uuid`;
    const outcome = await outcomeOf(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor }));
    expect(outcome).toEqual({ ok: false, code: "no_quorum" });
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 4_242 } })).toBe(0);
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "execution.refused", status: "no_quorum" } })).toBe(1);
  });

  it("arguments rewritten with both stored hashes recomputed do not execute on the reviewer's approval", async () => {
    const p = await approvedRefund(a, 1_000, "INV-1044");
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId } });
    const forgedArgs: JsonObject = { ...(revision.args as JsonObject), amount_minor: 400_000 };
    const forged = revisionHash({
      tenantId: a.id, tool: "refund_invoice", kind: "tool", args: forgedArgs, code: null, language: null,
      sandboxSpec: null, revision: 1, policyVersion: revision.policyVersion,
    }).hash;
    // As the owner: the app role may not switch triggers off.
    await t.ownerDb.$transaction([
      t.ownerDb.$executeRaw`ALTER TABLE "ActionRevision" DISABLE TRIGGER USER`,
      t.ownerDb.$executeRaw`UPDATE "ActionRevision" SET args = ${JSON.stringify(forgedArgs)}::jsonb, "payloadHash" = ${forged} WHERE id = ${revision.id}::uuid`,
      t.ownerDb.$executeRaw`ALTER TABLE "ActionRevision" ENABLE TRIGGER USER`,
    ]);
    await t.db.$executeRaw`UPDATE "Action" SET "payloadHash" = ${forged} WHERE id = ${p.actionId}::uuid`;
    // The caller sends the hash now stored (what the HTTP API does when the agent sends none).
    const outcome = await outcomeOf(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: forged, executor: { type: "requester" }, actor }));
    expect(outcome).toEqual({ ok: false, code: "no_quorum" });
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: { in: [1_000, 400_000] } } })).toBe(0);
  });

  it("a revision's payload cannot be rewritten while triggers are on", async () => {
    const p = await approvedRefund(a, 1_001, "INV-1044");
    await expect(
      t.db.$executeRaw`UPDATE "ActionRevision" SET args = jsonb_set(args, '{amount_minor}', '700000') WHERE "actionId" = ${p.actionId}::uuid`,
    ).rejects.toThrow(/immutable/);
    await expect(t.db.$executeRaw`UPDATE "Decision" SET "payloadHash" = 'x' WHERE "actionId" = ${p.actionId}::uuid`).rejects.toThrow(/immutable/);
  });

  it("a vote by a reviewer who has since lost the role no longer counts toward the quorum", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await approvedRefund(fresh, 1_002, "INV-1044");
    await t.db.membership.updateMany({ where: { tenantId: fresh.id, userId: fresh.users.reviewer.id }, data: { roles: ["auditor"] } });
    const outcome = await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor }));
    expect(outcome).toEqual({ ok: false, code: "no_quorum" });
    expect(await t.db.refund.count({ where: { tenantId: fresh.id } })).toBe(0);
  });
});

describe("no approving one's own request through an API key (defect 3)", () => {
  it("a member with admin and reviewer roles who mints a key cannot approve what the key proposed", async () => {
    const fresh = await createTestTenant(t.db);
    const both = fresh.users.admin;
    await t.db.membership.updateMany({ where: { tenantId: fresh.id, userId: both.id }, data: { roles: ["admin", "reviewer"] } });
    const { apiKey } = await createApiKey(t.db, { tenantId: fresh.id, name: "my-bot", allowedTools: ["refund_invoice"], createdById: both.id });
    const p = await proposeAction(t.db, {
      tenantId: fresh.id, requester: { type: "api_key", apiKeyId: apiKey.id, label: "api:my-bot" }, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Through my own key" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    const vote = await outcomeOf(decideAction(t.db, {
      tenantId: fresh.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash,
      reviewer: { userId: both.id, label: both.email, roles: ["admin", "reviewer"], sessionId: null },
    }));
    expect(vote).toEqual({ ok: false, code: "self_approval" });
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(0);
    // A decision row forged for the key's creator does not make a quorum either.
    await t.db.decision.create({
      data: {
        tenantId: fresh.id, actionId: p.actionId, revisionId: (await t.db.actionRevision.findFirstOrThrow({ where: { actionId: p.actionId } })).id,
        reviewerId: both.id, verdict: "approve", payloadHash: p.payloadHash,
      },
    });
    await t.db.$executeRaw`UPDATE "Action" SET status = 'approved' WHERE id = ${p.actionId}::uuid`;
    expect(await outcomeOf(executeAction(t.db, { tenantId: fresh.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor })))
      .toEqual({ ok: false, code: "no_quorum" });
    // Another reviewer can.
    await t.db.$executeRaw`UPDATE "Action" SET status = 'pending' WHERE id = ${p.actionId}::uuid`;
    const ok = await decideAction(t.db, {
      tenantId: fresh.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: fresh.users.reviewer.member,
    });
    expect(ok.status).toBe("approved");
  });
});

describe("the claim trusts nothing the caller or this process remembers", () => {
  it("roles passed in by the caller are not trusted: the vote reads the membership", async () => {
    const fresh = await createTestTenant(t.db);
    const p = await proposeAction(t.db, {
      tenantId: fresh.id, requester: fresh.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 5_001, reason: "Claimed roles" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    const auditorClaimingReviewer = { ...fresh.users.auditor.member, roles: ["reviewer" as const] };
    expect(await outcomeOf(decideAction(t.db, {
      tenantId: fresh.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: auditorClaimingReviewer,
    }))).toEqual({ ok: false, code: "not_eligible" });
  });
});
