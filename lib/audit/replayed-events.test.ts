import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditBodyOfRow, auditLeaf, auditLeafBytes } from "@/lib/audit/audit-record";
import { auditKeys } from "@/lib/audit/audit-keys";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { sealMac } from "@/lib/audit/event-mac";
import { requestSeal, sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { appendLeaf, frontierAt, leafHash, toHex } from "@/lib/audit/transparency/merkle";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sqlTransaction } from "@/lib/db/sql";
import { lockAuditTree } from "@/lib/db/statements/audit/lock-audit-tree";
import { readUnsealedAuditEvents } from "@/lib/db/statements/audit/read-unsealed-audit-events";
import { writeAuditSeals } from "@/lib/db/statements/audit/write-audit-seals";

/**
 * A replayed event: the owner drops the unique index on AuditEvent.uid and inserts a copy of a
 * sealed event, uid and MAC included. The sealer refuses it; one sealed without that check is
 * named by the full walk and the offline verifier.
 */
const t = setUpTestDatabase();

beforeAll(async () => {
  await t.ownerDb.$executeRawUnsafe(`DROP INDEX "AuditEvent_uid_key"`);
});

async function tenantWithEvents(n: number) {
  const tenant = await createTestTenant(t.db);
  for (let i = 0; i < n; i++) {
    await appendAuditEvent(t.db, { tenantId: tenant.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task", id: `t${i}` }, data: { planner: "test", instructionLength: i } });
  }
  await sealAuditChain(t.db, tenant.id);
  // The background passes the appends asked for (requestSeal) are done too: none may seal, or
  // quarantine, the replay this file inserts next behind the test's back.
  await requestSeal(t.db, tenant.id);
  return tenant.id;
}

const eventAt = async (tenantId: string, seq: number) => (await t.db.auditSeal.findFirstOrThrow({ where: { tenantId, seq } })).eventId;

/** The owner copies an event, uid and MAC and all, as a new row. */
async function replay(eventId: bigint): Promise<bigint> {
  const [row] = await t.ownerDb.$queryRawUnsafe<Array<{ id: bigint }>>(`INSERT INTO "AuditEvent" ("tenantId", uid, mac, "macOmits", "actorType", "actorId", "actorLabel", type, outcome,
      "subjectType", "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data)
    SELECT "tenantId", uid, mac, "macOmits", "actorType", "actorId", "actorLabel", type, outcome,
      "subjectType", "subjectId", "actionId", tool, verdict, "riskLevel", "reviewerId", requester, status, data
    FROM "AuditEvent" WHERE id = ${eventId} RETURNING id`);
  return row.id;
}

/** Seals `eventId` as the next leaf, as a console without the uid check did: the seal is genuine. */
async function sealWithoutTheCheck(tenantId: string, eventId: bigint): Promise<void> {
  const { macKey } = auditKeys();
  await sqlTransaction(t.db, async (tx) => {
    const head = await lockAuditTree(tx, { tenantId });
    const row = (await readUnsealedAuditEvents(tx, { tenantId, floor: "0", limit: 100 })).find((r) => r.id === eventId);
    if (!row) throw new Error(`event ${eventId} is not waiting to be sealed`);
    const frontier = await frontierAt(Number(head.size), storedSubtrees(tx, tenantId));
    const seq = head.size + 1n;
    const leaf = leafHash(auditLeafBytes(auditLeaf({ ...row, seq }, auditBodyOfRow(row))));
    const nodes = appendLeaf(frontier, leaf).completed.map((node) => toHex(node.hash));
    const seal = { seq, eventId, leafHash: toHex(leaf), nodes };
    const mac = sealMac(macKey, { tenantId, ...seal });
    await writeAuditSeals(tx, { seals: [{ tenantId, floor: head.floor, eventId: String(eventId), seq: String(seq), leafHash: seal.leafHash, nodes, mac }], quarantined: [] });
  });
}

describe("a replayed event (the unique index on its uid dropped by the owner)", () => {
  it("is quarantined by the sealer, never sealed, and named on /audit; the checkpoint covers the tree without it", async () => {
    const tenantId = await tenantWithEvents(3);
    const original = await eventAt(tenantId, 2);
    const copy = await replay(original);
    await sealAuditChain(t.db, tenantId);
    expect(await t.db.auditSeal.count({ where: { eventId: copy } })).toBe(0);
    const quarantine = await t.db.auditQuarantine.findUniqueOrThrow({ where: { eventId: copy } });
    expect(quarantine.reason).toContain(`a replay: event ${original} carries the same uid`);
    const result = await verifyAuditChain(t.db, tenantId);
    expect(result.problems.map((p) => [p.problem, p.eventId])).toEqual([["quarantined", String(copy)]]);
    expect(result.problems[0].message).toContain("a replay");
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", size: 3n });
  });

  it("a copy of an event not yet sealed waits behind it: the first is sealed, the copy is not", async () => {
    const tenantId = await tenantWithEvents(1);
    const { id: original } = await appendAuditEvent(t.db, { tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: 9 } });
    const copy = await replay(original);
    await sealAuditChain(t.db, tenantId);
    expect(await t.db.auditSeal.count({ where: { eventId: original } })).toBe(1);
    expect(await t.db.auditSeal.count({ where: { eventId: copy } })).toBe(0);
    expect(await t.db.auditQuarantine.count({ where: { eventId: copy } })).toBe(1);
  });

  it("sealed by a console without the check, it is named by the full walk and by the offline verifier", async () => {
    const tenantId = await tenantWithEvents(3);
    const original = await eventAt(tenantId, 2);
    const { uid } = await t.db.auditEvent.findUniqueOrThrow({ where: { id: original }, select: { uid: true } });
    await sealWithoutTheCheck(tenantId, await replay(original));
    // Every MAC holds and the tree is whole: the incremental check and the checkpoint vouch for it.
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", size: 4n });
    const full = await verifyAuditChain(t.db, tenantId, { kind: "full" });
    expect(full.problems.map((p) => [p.problem, p.seq])).toEqual([["replayed", "4"]]);
    expect(full.problems[0].message).toBe(`Leaf 4 repeats the uid ${uid} of leaf 2: a copy of one event was sealed again.`);

    let text = "";
    for await (const line of verifiableExportLines(t.db, { tenantId, filters: {} })) text += line;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-replay-")), "export.jsonl");
    writeFileSync(file, text);
    const verified = spawnSync(process.execPath, [path.join(process.cwd(), "scripts", "verify-audit-export.mjs"), file, "--log-key", auditKeys().verifierKey], { encoding: "utf8" });
    expect(verified.stderr.split("\n")[0]).toBe(`replay: events seq 2, 4 carry the same uid ${uid}: one event was sealed more than once (a copy)`);
    expect(verified.status).toBe(1);
  });
});
