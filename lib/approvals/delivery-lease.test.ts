import { afterAll, beforeAll, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { recoverStaleExecutions } from "@/lib/approvals/recover-executions";

/**
 * A delivery (here a sandbox run) keeps its lease while it runs, from the database clock; and the
 * outcome reported is the one the execution row holds — never a state its record did not write.
 */
const leaseMs = process.env.COUNTERSIGN_EXECUTION_LEASE_MS;

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
beforeAll(async () => {
  // Renewed every second: a loaded machine may stall this process for a moment without losing the
  // lease (with 900 ms, a 600 ms stall let recovery take a healthy delivery over).
  process.env.COUNTERSIGN_EXECUTION_LEASE_MS = "3000";
});
afterAll(async () => {
  if (leaseMs === undefined) delete process.env.COUNTERSIGN_EXECUTION_LEASE_MS;
  else process.env.COUNTERSIGN_EXECUTION_LEASE_MS = leaseMs;
});

async function approvedCode(code: string) {
  const p = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code, language: "python" } });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });
  return p;
}

const actor = { type: "system" as const, label: "lease-test" };

it("a run longer than its lease keeps the lease renewed: recovery running all the while never takes it", async () => {
  const p = await approvedCode("import time\ntime.sleep(7.5)\nprint('done')"); // over twice the lease
  const running = executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor });
  let taken = 0;
  let settled = false;
  void running.finally(() => (settled = true)).catch(() => {});
  while (!settled) {
    taken += (await recoverStaleExecutions(t.db)).length;
    await new Promise((r) => setTimeout(r, 150));
  }
  const outcome = await running;
  expect(taken).toBe(0);
  expect(outcome.state).toBe("succeeded");
  expect(await t.db.execution.findFirstOrThrow({ where: { actionId: p.actionId } })).toMatchObject({ status: "succeeded", stdout: "done\n" });
}, 60_000);

it("a delivery whose lease was taken over reports the state recovery recorded, and writes no second outcome", async () => {
  // Still running whenever the test gets to look, however slow the machine: the takeover stops it.
  const p = await approvedCode("import time\ntime.sleep(60)\nprint('late')");
  const running = executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor });
  const executing = () => t.db.execution.findFirst({ where: { actionId: p.actionId, status: "executing" } });
  await expect.poll(executing, { timeout: 30_000 }).not.toBeNull();
  const execution = await executing();
  // As if this process had stalled past its lease: recovery takes the execution over.
  await t.db.$executeRaw`UPDATE "Execution" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = ${execution!.id}::uuid`;
  expect(await recoverStaleExecutions(t.db)).toEqual([{ executionId: execution!.id, state: "unknown" }]);
  const outcome = await running;
  expect(outcome.state).toBe("unknown");
  expect((await t.db.execution.findUniqueOrThrow({ where: { id: execution!.id } })).status).toBe("unknown");
  const ends = await t.db.auditEvent.findMany({ where: { actionId: p.actionId, type: { in: ["execution.succeeded", "execution.failed", "execution.unknown"] } } });
  expect(ends.map((e) => e.type)).toEqual(["execution.unknown"]);
}, 60_000);
