import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditKeyProblem, auditKeys } from "@/lib/audit/audit-keys";
import { auditLogInfo } from "@/lib/audit/audit-proofs";
import type { AuditFilters } from "@/lib/audit/audit-filters";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { noteSigner, signNote } from "@/lib/audit/transparency/signed-note";

/**
 * Checkpoint rows are input: the console's role may INSERT any. One it did not sign or cannot start
 * from is skipped and named, and /audit and the export keep working; an export after a rollback is
 * whole, for the verifier to say what is missing.
 */
const t = setUpTestDatabase();
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "countersign-untrusted-"));
});

const append = (tenantId: string, i: number) =>
  appendAuditEvent(t.db, { tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task", id: `t${i}` }, data: { planner: "test", instructionLength: i } });

async function tenantWithCheckpoint(events: number) {
  const tenant = await createTestTenant(t.db);
  for (let i = 0; i < events; i++) await append(tenant.id, i);
  expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", size: BigInt(events) });
  return tenant.id;
}

async function exported(tenantId: string, filters: AuditFilters = {}) {
  let text = "";
  for await (const line of verifiableExportLines(t.db, { tenantId, filters })) text += line;
  const file = path.join(dir, `${tenantId}-${Date.now()}.jsonl`);
  writeFileSync(file, text);
  const lines = text.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; seq?: string; note?: string; toSeq?: string; consoleCheck?: { problems: Array<{ problem: string; message: string }> } });
  const verified = spawnSync(process.execPath, [path.join(process.cwd(), "scripts", "verify-audit-export.mjs"), file, "--log-key", auditKeys().verifierKey], { encoding: "utf8" });
  return { lines, verified, sizes: lines.filter((l) => l.kind === "checkpoint").map((l) => l.note!.split("\n")[1]) };
}

/** A row as the app role inserts it (its right: INSERT), returning its id. */
async function insertAsApp(sql: string): Promise<bigint> {
  const [row] = await t.db.$queryRawUnsafe<Array<{ id: bigint }>>(`${sql} RETURNING id`);
  return row.id;
}

describe("checkpoint rows the console did not sign", () => {
  it("one of the wrong shape, inserted by the app role, is named and ignored: /audit's check, new checkpoints and the export work", async () => {
    const tenantId = await tenantWithCheckpoint(5);
    const forged = await insertAsApp(`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      VALUES ('${tenantId}', 59, '${"ab".repeat(32)}', ARRAY['${"cd".repeat(32)}'], E'forged\\n59\\nroot\\n', ARRAY['witness.test/w1'])`);
    const result = await verifyAuditChain(t.db, tenantId);
    expect(result).toMatchObject({ ok: false, treeSize: 5n, checkpoint: { size: 5n } });
    expect(result.problems.map((p) => p.problem)).toEqual(["checkpoint_signature"]);
    expect(result.problems[0].message).toMatch(new RegExp(`^Checkpoint ${forged} \\(size 59\\) is not signed by this console's key.*: ignored\\.$`));
    // The log keeps growing and being checkpointed; what anyone is told is the console's own checkpoint.
    await append(tenantId, 5);
    await append(tenantId, 6);
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", size: 7n });
    expect((await auditLogInfo(t.db, tenantId)).checkpoint).toMatchObject({ size: "7" });

    const { lines, verified, sizes } = await exported(tenantId);
    expect(lines.filter((l) => l.kind === "event").map((l) => l.seq)).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    expect(sizes).toEqual(["5", "7"]);
    expect(lines[0].consoleCheck?.problems[0].message).toContain(`Checkpoint ${forged} (size 59)`);
    expect(verified.status).toBe(0);
    expect(verified.stderr.split("\n")[0]).toContain(`the console's own check reported: checkpoint_signature: Checkpoint ${forged} (size 59)`);
  });

  it("a row signed by another key, newest of all, does not stop the console from starting", async () => {
    await tenantWithCheckpoint(2);
    // Signed properly, by a key that is not this console's (the row's note is SQL-quoted below).
    const note = signNote("another-console/log\n1\nAAAA\n", noteSigner("another-console", Buffer.alloc(32, 3)));
    await insertAsApp(`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      SELECT "tenantId", size, "rootHash", frontier, '${note.replaceAll("'", "''")}', witnesses FROM "AuditCheckpoint" ORDER BY id DESC LIMIT 1`);
    expect(await auditKeyProblem(t.db)).toBeNull();
  });

  it("a genuine note copied into a row with another frontier or witnesses is named and ignored too", async () => {
    const tenantId = await tenantWithCheckpoint(3);
    const badFrontier = await insertAsApp(`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      SELECT "tenantId", size, "rootHash", ARRAY['${"ee".repeat(32)}', '${"ff".repeat(32)}'], note, witnesses FROM "AuditCheckpoint" WHERE "tenantId" = '${tenantId}'`);
    const badWitness = await insertAsApp(`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      SELECT "tenantId", size, "rootHash", frontier, note, ARRAY['witness.test/w1'] FROM "AuditCheckpoint" WHERE "tenantId" = '${tenantId}' AND id < ${badFrontier}`);
    const result = await verifyAuditChain(t.db, tenantId);
    expect(result.problems.map((p) => [p.problem, p.message.split(" ").slice(0, 2).join(" ")])).toEqual([
      ["checkpoint_malformed", `Checkpoint ${badWitness}`],
      ["checkpoint_malformed", `Checkpoint ${badFrontier}`],
    ]);
    expect(result.checkpoint?.witnesses).toEqual([]);
    expect((await exported(tenantId)).verified.status).toBe(0);
  });
});

describe("an export after a rollback", () => {
  it("is whole, complete or filtered, and the verifier says the checkpoint covers seqs that are missing", async () => {
    const tenantId = await tenantWithCheckpoint(4);
    await append(tenantId, 4);
    await append(tenantId, 5);
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", size: 6n });
    const gone = (await t.db.auditSeal.findMany({ where: { tenantId, seq: { gte: 5 } }, select: { eventId: true } })).map((s) => s.eventId);
    await t.ownerDb.$transaction([
      ...["AuditEvent", "AuditSeal"].map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" DISABLE TRIGGER USER`)),
      t.ownerDb.$executeRawUnsafe(`DELETE FROM "AuditSeal" WHERE "eventId" IN (${gone.join(",")})`),
      t.ownerDb.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE id IN (${gone.join(",")})`),
      ...["AuditEvent", "AuditSeal"].map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" ENABLE TRIGGER USER`)),
    ]);

    const complete = await exported(tenantId);
    expect(complete.lines[0]).toMatchObject({ toSeq: "4" });
    expect(complete.lines.filter((l) => l.kind === "event").map((l) => l.seq)).toEqual(["1", "2", "3", "4"]);
    expect(complete.sizes).toEqual(["4", "6"]);
    expect(complete.lines[0].consoleCheck?.problems[0]).toMatchObject({ problem: "rolled_back" });
    expect(complete.verified.status).toBe(1);
    expect(complete.verified.stderr.split("\n")[0]).toBe("checkpoint size 6 covers seqs 5..6, which are missing from the export (events were removed from its end)");

    // Filtered: each event proven against the newest checkpoint the tree still holds.
    const filtered = await exported(tenantId, { type: "task.started" });
    expect(filtered.lines.filter((l) => l.kind === "event").map((l) => l.seq)).toEqual(["4", "3", "2", "1"]);
    expect(filtered.sizes).toEqual(["4", "6"]);
    expect(filtered.verified.status).toBe(1);
    expect(filtered.verified.stderr.split("\n")[0]).toBe("no consistency proof between the checkpoints of sizes 4 and 6");
  });
});
