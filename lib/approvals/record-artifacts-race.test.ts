import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { whileHolding } from "@/tests/action-lock";
import { createTestTenant } from "@/tests/factories";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import { decideAction } from "@/lib/approvals/decide-action";
import { PROCESS_ID, recordWithArtifacts, type Claimed } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sqlTransaction } from "@/lib/db/sql";
import { lockAction } from "@/lib/db/statements/actions/lock-action";
import { findTenantTool } from "@/lib/tools/tenant-tools";
import type { StoredArtifact } from "@/lib/tools/tool";

/**
 * A delivery that leaves files records them with its outcome in one transaction, or not at all
 * once crash recovery has recorded the execution `unknown` — also when recovery commits between
 * the files' inserts and the record (real concurrency against PostgreSQL): the files never hang
 * on a record this delivery did not write.
 */

const t = setUpTestDatabase();

const artifact = (name: string): StoredArtifact => ({
  id: randomUUID(), name, contentType: "text/plain", sha256: "0".repeat(64), bytes: Buffer.from(`contents of ${name}`),
});

describe("a delivery's files and its record", () => {
  it("a recovery that commits while the file is being stored leaves no file, and the recovery's record stands", async () => {
    const a = await createTestTenant(t.db);
    const p = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "send_email",
      args: { to: "billing@acme.example", subject: "Reminder", body: "INV-1042 is overdue.", invoice_number: "INV-1042" },
    });
    if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
    await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, payloadHash: p.payloadHash, verdict: "approve", reviewer: a.users.reviewer.member });
    // As a claim leaves it: this process delivering under a lease.
    const executionId = randomUUID();
    await t.db.action.update({ where: { id: p.actionId }, data: { status: "executing", consumedAt: new Date() } });
    await t.db.execution.create({
      data: {
        id: executionId, tenantId: a.id, actionId: p.actionId, revision: 1, idempotencyKey: `test-${executionId}`,
        claimedBy: PROCESS_ID, leaseExpiresAt: new Date(Date.now() + 600_000),
      },
    });
    const action = await sqlTransaction(t.db, (tx) => lockAction(tx, { tenantId: a.id, actionId: p.actionId }));
    const tool = await findTenantTool(t.db, a.id, "send_email");
    if (!action || !tool) throw new Error("the action and its tool exist");
    const claimed: Claimed = { action, tool, args: {}, executionId, idempotencyKey: `test-${executionId}` };
    const file = artifact("report.txt");

    // Recovery under way on another connection, as it marks a lapsed execution: the row locked FOR
    // UPDATE and written `unknown`, not yet committed. The delivery's insert of its file reads the
    // execution as still its own, then waits for that lock; recovery commits; the file's row goes
    // in — and the record, which finds the execution recorded already, must take it back out.
    const held = await whileHolding(
      t.url,
      [
        [`SELECT 1 FROM "Execution" WHERE id = $1 FOR UPDATE`, [executionId]],
        [`UPDATE "Execution" SET status = 'unknown', "finishedAt" = now(), "leaseExpiresAt" = NULL WHERE id = $1`, [executionId]],
      ],
      async (waiters) => {
        const recording = recordWithArtifacts(t.db, claimed, { ok: true, result: { delivered: true }, artifacts: [file] }, 12, SYSTEM_ACTOR);
        await waiters(1);
        return { recording };
      },
    );
    expect((await held.recording).state).toBe("unknown");
    expect(await t.db.executionArtifact.count({ where: { executionId } })).toBe(0);
    expect(await t.db.execution.findUniqueOrThrow({ where: { id: executionId } })).toMatchObject({ status: "unknown" });
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "execution.succeeded" } })).toBe(0);
  });
});
