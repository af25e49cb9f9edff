import { describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { driveUntilIdle } from "@/tests/task-driver";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { offlinePlanner } from "@/lib/agent/offline-planner";
import { decideAction } from "@/lib/approvals/decide-action";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { startTask } from "@/lib/tasks/start-task";
import { parseRunState } from "@/lib/tasks/run-state";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

async function start(instruction: string) {
  const { taskId } = await startTask(t.db, {
    tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email }, instruction, planner: "offline",
  });
  await driveUntilIdle(t.db, offlinePlanner);
  return taskId;
}

async function pendingOf(taskId: string) {
  return t.db.action.findMany({ where: { taskId, status: "pending" }, orderBy: { createdAt: "asc" } });
}

async function decide(actionId: string, verdict: "approve" | "reject", reviewer = a.users.reviewer, note?: string) {
  const action = await t.db.action.findUniqueOrThrow({ where: { id: actionId } });
  return decideAction(t.db, { tenantId: a.id, actionId, verdict, note, payloadHash: action.payloadHash, reviewer: reviewer.member });
}

async function task(taskId: string) {
  return t.db.task.findUniqueOrThrow({ where: { id: taskId } });
}

describe("demo scenarios through the offline planner", () => {
  it("payment reminder: reads pass, the email waits, approval sends it, the requester gets an answer", async () => {
    const id = await start("Send a payment reminder for INV-1042");
    expect((await task(id)).status).toBe("waiting_approval");
    const [email] = await pendingOf(id);
    expect(email.tool).toBe("send_email");
    await decide(email.id, "approve");
    await driveUntilIdle(t.db, offlinePlanner);
    const done = await task(id);
    expect(done.status).toBe("completed");
    expect(done.finalAnswer).toMatch(/INV-1042/);
    const outbox = await t.db.emailOutbox.findMany({ where: { tenantId: a.id, toAddress: "billing@acme.example" } });
    expect(outbox).toHaveLength(1);
    const tools = (await t.db.action.findMany({ where: { taskId: id }, orderBy: { createdAt: "asc" } })).map((x) => [x.tool, x.status]);
    expect(tools).toEqual([["get_invoice", "succeeded"], ["lookup_customer", "succeeded"], ["send_email", "succeeded"]]);
  });

  it("cancel an invoice", async () => {
    const id = await start("Cancel invoice INV-1045, the order was withdrawn");
    const [cancel] = await pendingOf(id);
    expect(cancel.tool).toBe("cancel_invoice");
    await decide(cancel.id, "approve");
    await driveUntilIdle(t.db, offlinePlanner);
    expect((await task(id)).status).toBe("completed");
    expect((await t.db.invoice.findFirstOrThrow({ where: { tenantId: a.id, number: "INV-1045" } })).status).toBe("cancelled");
  });

  it("small refund: one approval", async () => {
    const id = await start("Refund 450.00 on INV-1043");
    const [refund] = await pendingOf(id);
    expect(refund).toMatchObject({ tool: "refund_invoice", quorum: 1 });
    await decide(refund.id, "approve");
    await driveUntilIdle(t.db, offlinePlanner);
    expect((await task(id)).status).toBe("completed");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 45_000 } })).toBe(1);
  });

  it("a requester disabled while their refund waits: the approved refund does not run, and the task stops saying why", async () => {
    const b = await createTestTenant(t.db);
    const { taskId } = await startTask(t.db, {
      tenantId: b.id, requester: { userId: b.users.requester.id, label: b.users.requester.email }, instruction: "Refund 450.00 on INV-1043", planner: "offline",
    });
    await driveUntilIdle(t.db, offlinePlanner);
    const [refund] = await t.db.action.findMany({ where: { taskId, status: "pending" } });
    await decideAction(t.db, { tenantId: b.id, actionId: refund.id, verdict: "approve", payloadHash: refund.payloadHash, reviewer: b.users.reviewer.member });
    await t.db.user.update({ where: { id: b.users.requester.id }, data: { disabledAt: new Date() } });
    await driveUntilIdle(t.db, offlinePlanner);
    expect(await task(taskId)).toMatchObject({ status: "failed", error: expect.stringMatching(/no longer a member of this organisation who may run tasks/) });
    expect(await t.db.execution.count({ where: { actionId: refund.id } })).toBe(0);
    expect(await t.db.refund.count({ where: { tenantId: b.id } })).toBe(0);
  });

  it("large refund: waits for two different reviewers before it runs", async () => {
    const id = await start("Refund $12,000 on INV-1044, duplicate payment");
    const [refund] = await pendingOf(id);
    expect(refund.quorum).toBe(2);
    await decide(refund.id, "approve", a.users.reviewer);
    await driveUntilIdle(t.db, offlinePlanner);
    expect((await task(id)).status).toBe("waiting_approval");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 1_200_000 } })).toBe(0);
    await decide(refund.id, "approve", a.users.reviewer2);
    await driveUntilIdle(t.db, offlinePlanner);
    expect((await task(id)).status).toBe("completed");
    expect(await t.db.refund.count({ where: { tenantId: a.id, amountMinor: 1_200_000 } })).toBe(1);
  });

  it("a rejection's reason goes back to the model, which stops and quotes it", async () => {
    const id = await start("Cancel invoice INV-1042");
    const [cancel] = await pendingOf(id);
    await decide(cancel.id, "reject", a.users.reviewer, "Acme is negotiating; do not cancel");
    await driveUntilIdle(t.db, offlinePlanner);
    const done = await task(id);
    expect(done.status).toBe("completed");
    const toolMessages = parseRunState(done.runState).messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(toolMessages.some((m) => m.includes("Acme is negotiating; do not cancel"))).toBe(true);
    expect(done.finalAnswer).toContain("Acme is negotiating");
    expect((await t.db.invoice.findFirstOrThrow({ where: { tenantId: a.id, number: "INV-1042" } })).status).toBe("open");
  });

  it("an expired approval is reported as expired, not rejected", async () => {
    const id = await start("Cancel invoice INV-1047");
    const [cancel] = await pendingOf(id);
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = now() - interval '1 second' WHERE id = ${cancel.id}::uuid`;
    await expireDueActions(t.db);
    await driveUntilIdle(t.db, offlinePlanner);
    const done = await task(id);
    expect(done.status).toBe("completed");
    expect(done.finalAnswer?.toLowerCase()).toContain("expired");
    expect(done.finalAnswer?.toLowerCase()).not.toContain("rejected");
  });

  it("prompt injection: the exfiltration email is tagged high risk; after rejection the real reminder goes out", async () => {
    const id = await start("Send a payment reminder for INV-1046");
    const [exfil] = await pendingOf(id);
    expect(exfil.tool).toBe("send_email");
    const revision = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: exfil.id } });
    expect((revision.args as { to: string }).to).toBe("audit-desk@exfil-mail.example");
    expect(["high", "critical"]).toContain(exfil.riskLevel);
    const tags = (revision.riskTags as Array<{ id: string }>).map((x) => x.id);
    expect(tags).toEqual(expect.arrayContaining(["recipient.outside-domain", "provenance.untrusted"]));

    await decide(exfil.id, "reject", a.users.reviewer, "Prompt injection from the customer notes; never email customer data outside");
    await driveUntilIdle(t.db, offlinePlanner);
    const [legit] = await pendingOf(id);
    const legitArgs = (await t.db.actionRevision.findFirstOrThrow({ where: { actionId: legit.id } })).args as { to: string };
    expect(legitArgs.to).toBe("finance@globex.example");
    await decide(legit.id, "approve");
    await driveUntilIdle(t.db, offlinePlanner);
    expect((await task(id)).status).toBe("completed");
    expect(await t.db.emailOutbox.count({ where: { tenantId: a.id, toAddress: "audit-desk@exfil-mail.example" } })).toBe(0);
    expect(await t.db.emailOutbox.count({ where: { tenantId: a.id, toAddress: "finance@globex.example" } })).toBe(1);
  });

  it("python analysis: the code is scanned, approved and run in the sandbox; the answer quotes its output", async () => {
    const id = await start("Run a Python analysis of the storage-buckets dataset and list stale buckets");
    const [code] = await pendingOf(id);
    expect(code.tool).toBe("run_python");
    expect(code.kind).toBe("code");
    await decide(code.id, "approve");
    await driveUntilIdle(t.db, offlinePlanner);
    const done = await task(id);
    expect(done.status, done.error ?? "").toBe("completed");
    expect(done.finalAnswer).toContain("legacy-backups-eu");
    const execution = await t.db.execution.findFirstOrThrow({ where: { actionId: code.id } });
    expect(["container", "namespace"]).toContain(execution.isolation);
    expect(execution.status).toBe("succeeded");
  }, 90_000);

  it("the audit chain verifies after every scenario", async () => {
    await sealAuditChain(t.db, a.id);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, unsealed: 0 });
  });
});
