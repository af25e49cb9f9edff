import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createDb, type Db } from "@/lib/db/client";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

/**
 * The events before MACs are fixed by SQL functions the tables' owner can replace; the console
 * holds the boundary itself, so a replaced function changes nothing, after a restart and on a
 * machine that never read it.
 */
const t = setUpTestDatabase();
const clients: Db[] = [];

const stateFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-legacy-")), "audit-state.jsonl");
/** A console process started afresh: a new client, which reads the boundary anew. */
const restarted = () => {
  const db = createDb(t.url, { max: 4 });
  clients.push(db);
  return db;
};

afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  await Promise.all(clients.map((db) => db.$disconnect()));
});

/** A reviewer's approval inserted with database access alone: no MAC. */
const forgedApproval = async (tenantId: string) => {
  const [row] = await t.ownerDb.$queryRawUnsafe<Array<{ id: bigint }>>(`INSERT INTO "AuditEvent" ("tenantId", uid, mac, "actorType", "actorLabel", type, outcome, "subjectType", verdict, data)
    VALUES ('${tenantId}', gen_random_uuid(), NULL, 'user', 'reviewer@demo.test', 'decision.recorded', 'ok', 'action', 'approve', '{"note": null}') RETURNING id`);
  return row.id;
};

describe("the events-before-MACs boundary", () => {
  it("replaced by the owner, changes nothing: after a restart, and on a machine that never held it, a MAC-less approval is quarantined", async () => {
    vi.stubEnv("AUDIT_STATE_FILE", stateFile());
    const tenant = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await appendAuditEvent(t.db, { tenantId: tenant.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } });
    }
    expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", size: 3n });
    const signed = await t.db.auditCheckpoint.findFirstOrThrow({ where: { tenantId: tenant.id } });
    expect(signed.note.split("\n")[3]).toBe("countersign-legacy-events 0 0");

    // Every event id is now "before MACs existed", as the database tells it.
    await t.ownerDb.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION "audit_legacy_ceiling"() RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 9000000000000000000::bigint'`);
    await t.ownerDb.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION "audit_legacy_count"() RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 9000000000000000000::bigint'`);

    const afterRestart = restarted();
    const first = await forgedApproval(tenant.id);
    await sealAuditChain(afterRestart, tenant.id);
    // A machine with an empty state file: the boundary the console signed into its checkpoints.
    vi.stubEnv("AUDIT_STATE_FILE", stateFile());
    const elsewhere = restarted();
    const second = await forgedApproval(tenant.id);
    await sealAuditChain(elsewhere, tenant.id);

    for (const id of [first, second]) {
      expect(await t.db.auditSeal.count({ where: { eventId: id } })).toBe(0);
      expect(await t.db.auditQuarantine.findUniqueOrThrow({ where: { eventId: id } })).toMatchObject({ reason: "no MAC: not written by the console" });
    }
    expect(await checkpointAuditLog(elsewhere, tenant.id, { force: true })).toMatchObject({ state: "signed", size: 3n });
    const result = await verifyAuditChain(elsewhere, tenant.id);
    expect(result.problems.map((p) => [p.problem, p.eventId])).toEqual([["quarantined", String(first)], ["quarantined", String(second)]]);
  });
});
