import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { recoverStaleExecutions } from "@/lib/approvals/recover-executions";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

async function approvedRefund(amountMinor: number, invoice = "INV-1044") {
  const p = await proposeAction(t.db, {
    tenantId: a.id, requester: a.requester, tool: "refund_invoice",
    args: { invoice_number: invoice, amount_minor: amountMinor, reason: "Race test" },
  });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });
  return p;
}

describe("racing executors (real concurrency against PostgreSQL)", () => {
  it.each([1, 2, 3, 4, 5])("round %i: 60 concurrent executions of one approval → exactly one execution and one refund", async (round) => {
    const amount = 100 + round;
    const p = await approvedRefund(amount);
    const attempts = await Promise.allSettled(
      Array.from({ length: 60 }, () =>
        executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "racer" } }),
      ),
    );
    const winners = attempts.filter((r) => r.status === "fulfilled");
    expect(winners).toHaveLength(1);
    const losers = attempts.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(new Set(losers.map((r) => (r.reason as { code?: string }).code))).toEqual(new Set(["already_executed"]));
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(1);
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: amount } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "execution.refused", data: { path: ["actionId"], equals: p.actionId } } })).toBe(59);
  });

  it("concurrent approvals by two reviewers toward a quorum of two approve exactly once", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 200_000, reason: "Quorum race" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    const votes = await Promise.all(
      [a.users.reviewer, a.users.reviewer2].map((r) =>
        decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: r.member }),
      ),
    );
    expect(votes.map((v) => v.status).sort()).toEqual(["approved", "pending"]);
    expect(await t.db.auditEvent.count({ where: { actionId: p.actionId, type: "decision.recorded", status: "approved" } })).toBe(1);
  });

  it("the same reviewer voting twice at once counts once", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 300_000, reason: "Double vote race" },
    });
    if (p.state !== "pending") throw new Error("expected pending");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    // Ordered by the action's lock (no unique index stands behind it: a reviewer may vote again once
    // their vote stops counting), every other attempt sees the first and is refused as a repeat.
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(new Set(refused.map((r) => (r.reason as { code?: string }).code))).toEqual(new Set(["already_voted"]));
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("pending");
    expect(await t.db.decision.count({ where: { actionId: p.actionId } })).toBe(1);
  });

  it("the audit chain never forks under all that concurrency", async () => {
    await sealAuditChain(t.db, a.id);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, unsealed: 0 });
  });
});

describe("crash safety (a killed process, for real)", () => {
  const runCrashingExecutor = (p: { actionId: string; payloadHash: string }, mode: string, tool = "refund_invoice") =>
    spawnSync(
      process.execPath,
      ["--import", "tsx", "tests/crash-executor.ts", t.url, a.id, p.actionId, p.payloadHash, mode, tool],
      // Starting a tsx process takes tens of seconds on a loaded 2-core machine: the limits (here and
      // the tests' own, below) are about the machine's speed, not the behaviour.
      { cwd: process.cwd(), encoding: "utf8", env: { ...process.env, COUNTERSIGN_EXECUTION_LEASE_MS: "1", COUNTERSIGN_COMPUTE_THREADS: "1" }, timeout: 150_000 },
    );

  it.each([
    ["between claim and effect", "after_claim"],
    ["between effect and commit", "after_effect"],
  ])("killed %s: nothing happened, the approval is still unused, and the next execution refunds exactly once", async (_label, mode) => {
    const amount = mode === "after_claim" ? 777 : 778;
    const p = await approvedRefund(amount);
    const child = runCrashingExecutor(p, mode);
    expect(child.signal, child.stderr).toBe("SIGKILL");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: amount } })).toBe(0);
    expect(await t.db.execution.count({ where: { actionId: p.actionId } })).toBe(0);
    expect(await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).toMatchObject({ status: "approved", consumedAt: null });
    // Recovery has nothing to do: the claim and its effect were one transaction.
    expect(await recoverStaleExecutions(t.db)).toEqual([]);

    const outcome = await executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "retry" } });
    expect(outcome.state).toBe("succeeded");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: amount } })).toBe(1);
    expect(await t.db.execution.findFirstOrThrow({ where: { actionId: p.actionId } })).toMatchObject({ status: "succeeded", attempts: 1 });
  }, 180_000);

  it("killed during a sandbox run: after its lease lapses the execution is marked unknown for a person, never re-run", async () => {
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "print(1)", language: "python" },
    });
    if (p.state !== "pending") return expect.fail(`run_python should wait for approval (got ${p.state}: ${"reason" in p ? p.reason : ""})`);
    await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });
    const child = runCrashingExecutor(p, "during_delivery", "run_python");
    expect(child.signal, child.stderr).toBe("SIGKILL");
    const execution = await t.db.execution.findFirstOrThrow({ where: { actionId: p.actionId } });
    expect(execution.status).toBe("executing");
    const recovered = await recoverStaleExecutions(t.db);
    expect(recovered).toEqual(expect.arrayContaining([{ executionId: execution.id, state: "unknown" }]));
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("unknown");
    expect(await t.db.auditEvent.count({ where: { actionId: p.actionId, type: "execution.unknown" } })).toBe(1);
    // Its approval was used: it cannot be executed again.
    await expect(executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "retry" } }))
      .rejects.toMatchObject({ code: "already_executed" });
    expect(await recoverStaleExecutions(t.db)).toEqual([]);
    await expectEventsToFitTheirSchemas(t.db, a.id);
  }, 180_000);
});
