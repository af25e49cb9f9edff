import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditKeys } from "@/lib/audit/audit-keys";
import { auditLogInfo } from "@/lib/audit/audit-proofs";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

/**
 * An auditor's whole path against the real database: export, a database writer (superuser,
 * triggers off, no console key) rewrites history, export again, and the standalone verifier —
 * given the checkpoint saved before — names each tampering.
 */
const t = setUpTestDatabase();
let dir: string;
const SCRIPT = path.join(process.cwd(), "scripts", "verify-audit-export.mjs");

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "countersign-verify-"));
});

async function tenantWithCheckpoint(events: number) {
  const tenant = await createTestTenant(t.db);
  for (let i = 0; i < events; i++) {
    await appendAuditEvent(t.db, { tenantId: tenant.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task", id: `t${i}` }, data: { planner: "test", instructionLength: i } });
  }
  expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed" });
  const saved = path.join(dir, `${tenant.id}.checkpoint`);
  writeFileSync(saved, (await auditLogInfo(t.db, tenant.id)).checkpoint!.note);
  return { tenantId: tenant.id, saved };
}

async function exportTo(tenantId: string): Promise<string> {
  let text = "";
  for await (const line of verifiableExportLines(t.db, { tenantId, filters: {} })) text += line;
  const file = path.join(dir, `${tenantId}-${Date.now()}.jsonl`);
  writeFileSync(file, text);
  return file;
}

function verify(file: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, file, "--log-key", auditKeys().verifierKey, ...args], { encoding: "utf8" });
  return { code: result.status, first: result.stderr.split("\n")[0], stderr: result.stderr, stdout: result.stdout };
}

async function asSuperuser(...statements: string[]) {
  const tables = ["AuditEvent", "AuditSeal", "AuditCheckpoint"];
  await t.ownerDb.$transaction([
    ...tables.map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" DISABLE TRIGGER USER`)),
    ...statements.map((sql) => t.ownerDb.$executeRawUnsafe(sql)),
    ...tables.map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" ENABLE TRIGGER USER`)),
  ]);
}

const seal = (tenantId: string, seq: number) => t.db.auditSeal.findFirstOrThrow({ where: { tenantId, seq } });

describe("offline verification of a real export", () => {
  it("an untouched log verifies, also against the checkpoint saved earlier", async () => {
    const { tenantId, saved } = await tenantWithCheckpoint(6);
    const result = verify(await exportTo(tenantId), "--checkpoint", saved);
    expect(result.first).toBe("");
    expect(result.code).toBe(0);
  });

  it("the newest events deleted, their seals and checkpoints too: named as a rollback of the saved checkpoint", async () => {
    const { tenantId, saved } = await tenantWithCheckpoint(6);
    const gone = [(await seal(tenantId, 5)).eventId, (await seal(tenantId, 6)).eventId];
    await asSuperuser(
      `DELETE FROM "AuditCheckpoint" WHERE "tenantId" = '${tenantId}'`,
      `DELETE FROM "AuditSeal" WHERE "eventId" IN (${gone.join(",")})`,
      `DELETE FROM "AuditEvent" WHERE id IN (${gone.join(",")})`,
    );
    const result = verify(await exportTo(tenantId), "--checkpoint", saved);
    expect(result.code).toBe(1);
    expect(result.first).toMatch(/^rollback: .* smaller than the saved checkpoint .* of size 6: events 5\.\.6 were removed$/);
  });

  it("an event edited and every later hash recomputed (no key to re-sign): the checkpoint that no longer matches is named", async () => {
    const { tenantId, saved } = await tenantWithCheckpoint(6);
    const victim = await seal(tenantId, 2);
    await asSuperuser(`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim.eventId}`);
    const result = verify(await exportTo(tenantId), "--checkpoint", saved);
    expect(result.code).toBe(1);
    expect(result.first).toBe("checkpoint size 6 does not match: some event in seqs 1..6 was changed, inserted or removed");
    // The console names the very event (its MAC fails) on the full walk.
    expect((await verifyAuditChain(t.db, tenantId, { kind: "full" })).problems[0]).toMatchObject({ problem: "forged", seq: "2" });
  });

  it("a middle event deleted: the gap is named", async () => {
    const { tenantId, saved } = await tenantWithCheckpoint(6);
    const victim = (await seal(tenantId, 3)).eventId;
    await asSuperuser(`DELETE FROM "AuditSeal" WHERE "eventId" = ${victim}`, `DELETE FROM "AuditEvent" WHERE id = ${victim}`);
    const result = verify(await exportTo(tenantId), "--checkpoint", saved);
    expect(result.code).toBe(1);
    expect(result.first).toBe("gap: seq 3 is missing");
  });

  it("two events reordered: named", async () => {
    const { tenantId, saved } = await tenantWithCheckpoint(6);
    await asSuperuser(
      `UPDATE "AuditSeal" SET seq = CASE seq WHEN 2 THEN 3 ELSE 2 END + 1000 WHERE "tenantId" = '${tenantId}' AND seq IN (2, 3)`,
      `UPDATE "AuditSeal" SET seq = seq - 1000 WHERE "tenantId" = '${tenantId}' AND seq > 1000`,
    );
    const result = verify(await exportTo(tenantId), "--checkpoint", saved);
    expect(result.code).toBe(1);
    expect(result.first).toBe("checkpoint size 6 does not match: some event in seqs 1..6 was changed, inserted or removed");
  });

  it("a forged reviewer approval inserted with database access alone never reaches the tree; the console names it and the export says so", async () => {
    const { tenantId } = await tenantWithCheckpoint(3);
    await t.db.$executeRawUnsafe(`INSERT INTO "AuditEvent" ("tenantId", uid, mac, "actorType", "actorLabel", type, outcome, "subjectType", verdict, data)
      VALUES ('${tenantId}', gen_random_uuid(), '${"ab".repeat(32)}', 'user', 'reviewer@demo.test', 'decision.recorded', 'ok', 'action', 'approve', '{"note": null}')`);
    const file = await exportTo(tenantId);
    const result = verify(file);
    expect(result.code).toBe(0);
    const problems = (await verifyAuditChain(t.db, tenantId)).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ problem: "quarantined" });
    // The export's header carries the console's own finding (no line of the file shows the event), and the verifier passes it on.
    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]) as { consoleCheck: { ok: boolean; problems: unknown[] } };
    expect(header.consoleCheck).toMatchObject({ ok: false, problems: [{ problem: "quarantined" }] });
    expect(result.stderr).toContain("the console's own check reported: quarantined");
  });
});
