import { expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { loadActionView } from "@/lib/api/load-action-view";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { visibleText } from "@/lib/review/visible-text";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

it("a running execution's output is in its row while it runs, for every page that shows it", async () => {
  const code = ["import time", "print('first line', flush=True)", "time.sleep(6)", "print('second line')"].join("\n");
  const p = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code, language: "python" } });
  if (p.state !== "pending") return expect.fail(`expected pending, got ${p.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });

  const running = executeAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "test" } });
  // Looked for for as long as the run lasts (its 6 s pause leaves a loaded machine time to look).
  let settled = false;
  void running.finally(() => (settled = true)).catch(() => {});
  let seenWhileRunning: { status: string; stdout: string | null } | null = null;
  while (!seenWhileRunning && !settled) {
    await new Promise((r) => setTimeout(r, 100));
    const row = await t.db.execution.findFirst({ where: { actionId: p.actionId }, select: { status: true, stdout: true } });
    if (row?.status === "executing" && row.stdout?.includes("first line\n")) seenWhileRunning = row;
  }
  expect(seenWhileRunning?.stdout).toBe("first line\n");
  const done = await running;
  expect(done.state).toBe("succeeded");
  const final = await t.db.execution.findFirstOrThrow({ where: { actionId: p.actionId } });
  expect(final.stdout).toBe("first line\nsecond line\n");
}, 90_000);

it("output holding NUL bytes is stored and shown exactly, live and at the end", async () => {
  // U+0000 cannot go into PostgreSQL text or jsonb as it is; a lone surrogate has no UTF-8 form.
  const code = [
    "import time, warnings",
    "print('a\\x00b', flush=True)",
    "time.sleep(6)",
    "print('c\\x00d')",
    "warnings.warn('e\\x00f')",
  ].join("\n");
  const p = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code, language: "python" } });
  if (p.state !== "pending") return expect.fail(`expected pending, got ${p.state}: ${"reason" in p ? p.reason : ""}`);
  await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: a.users.reviewer.member });

  const streamed: string[] = [];
  const running = executeAction(t.db, {
    tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "test" },
    onOutput: (stream, text) => stream === "stdout" && streamed.push(text),
  });
  let settled = false;
  void running.finally(() => (settled = true)).catch(() => {});
  let liveSeen = false;
  while (!liveSeen && !settled) {
    await new Promise((r) => setTimeout(r, 100));
    const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, p.actionId);
    const e = detail?.executions[0];
    if (e?.status === "executing" && e.stdout === "a\u0000b\n") liveSeen = true;
  }
  expect(liveSeen).toBe(true);
  const done = await running;
  expect(done.state).toBe("succeeded");
  expect(done.result.stdout).toBe("a\u0000b\nc\u0000d\n");
  expect(streamed.join("")).toBe("a\u0000b\nc\u0000d\n");

  const detail = await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, p.actionId);
  const e = detail?.executions[0];
  expect(e).toMatchObject({ status: "succeeded", exitCode: 0, stdout: "a\u0000b\nc\u0000d\n" });
  expect(e?.stderr).toContain("UserWarning: e\u0000f\n");
  // The result, prepared for the page: the stored escape decoded, the NUL written as JSON writes it.
  expect(e?.result).toMatchObject({ text: expect.stringContaining(`"stdout": "a\\u0000b\\nc\\u0000d\\n"`), omittedCharacters: 0 });
  // What the reviewer's page shows: the NUL as an escape, not as nothing.
  expect(visibleText(e?.stdout ?? "")).toBe("a\\x00b\nc\\x00d\n");

  // The agent reads the same bytes back.
  const view = await loadActionView(t.db, { tenantId: a.id, actionId: p.actionId, apiKeyId: null });
  expect(view.execution?.result?.stdout).toBe("a\u0000b\nc\u0000d\n");
  expect(view.execution?.result?.stderr).toContain("e\u0000f\n");
}, 90_000);
