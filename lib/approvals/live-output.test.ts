import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";

let t: TestDatabase;
let a: TestTenant;

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createTestTenant(t.db);
});
afterAll(async () => t?.drop());

it("a running execution's output is in its row while it runs, for every page that shows it", async () => {
  const code = ["import time", "print('first line', flush=True)", "time.sleep(2)", "print('second line')"].join("\n");
  const p = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code, language: "python" } });
  if (p.state !== "pending") return expect.fail(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });

  const running = executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, actor: { type: "system", label: "test" } });
  let seenWhileRunning: { status: string; stdout: string | null } | null = null;
  for (let i = 0; i < 60 && !seenWhileRunning; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const row = await t.db.execution.findFirst({ where: { actionId: p.actionId }, select: { status: true, stdout: true } });
    if (row?.status === "executing" && row.stdout?.includes("first line\n")) seenWhileRunning = row;
  }
  expect(seenWhileRunning?.stdout).toBe("first line\n");
  const done = await running;
  expect(done.state).toBe("succeeded");
  const final = await t.db.execution.findFirstOrThrow({ where: { actionId: p.actionId } });
  expect(final.stdout).toBe("first line\nsecond line\n");
}, 60_000);
