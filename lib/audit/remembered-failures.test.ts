import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { ChainStatus } from "@/components/audit/chain-status";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditKeys, auditOrigin } from "@/lib/audit/audit-keys";
import { resolveAlarms } from "@/lib/audit/audit-state-file";
import { verifyFully } from "@/lib/audit/audit-upkeep";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { evidenceStatus } from "@/lib/audit/evidence-status";
import { SIG_COSIGNATURE_V1, noteSigner, verifierKey } from "@/lib/audit/transparency/signed-note";
import { startWitnessServer, type RunningWitness } from "@/lib/audit/transparency/witness-server";

/**
 * A failure the console found stays red on /audit — the page's own status, rendered as the server
 * renders it — until an operator resolves it: a rollback a witness detected, and a failed full
 * walk whose rows the database's owner deleted. The console remembers both beside its key.
 */
const t = setUpTestDatabase();
let witness: RunningWitness;
const witnessSigner = noteSigner("witness.test/w1", randomBytes(32), SIG_COSIGNATURE_V1);

beforeAll(async () => {
  vi.stubEnv("AUDIT_STATE_FILE", path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-alarms-")), "audit-state.jsonl"));
  witness = await startWitnessServer({
    signer: witnessSigner, logKeys: [auditKeys().verifier], port: 0,
    stateFile: path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-witness-")), "state.jsonl"),
  });
  vi.stubEnv("AUDIT_WITNESS_URLS", witness.url);
  vi.stubEnv("AUDIT_WITNESS_KEYS", verifierKey(witnessSigner.name, witnessSigner.publicKey, SIG_COSIGNATURE_V1));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await witness?.close();
});

async function tenantWithEvents(n: number): Promise<string> {
  const tenant = await createTestTenant(t.db);
  for (let i = 0; i < n; i++) {
    await appendAuditEvent(t.db, { tenantId: tenant.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } });
  }
  return tenant.id;
}

/** As the tables' owner: triggers off, the statements, triggers on. */
async function asOwner(...statements: string[]) {
  const tables = ["AuditEvent", "AuditSeal", "AuditCheckpoint", "AuditVerification"];
  await t.ownerDb.$transaction([
    ...tables.map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" DISABLE TRIGGER USER`)),
    ...statements.map((sql) => t.ownerDb.$executeRawUnsafe(sql)),
    ...tables.map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" ENABLE TRIGGER USER`)),
  ]);
}

/** /audit's evidence status as the server renders it. */
async function auditPage(tenantId: string): Promise<string> {
  const status = await evidenceStatus(t.db, tenantId);
  return renderToStaticMarkup(createElement(ChainStatus, { ...status, tenantId, verifierKey: auditKeys().verifierKey, now: new Date() }));
}

describe("failures the console remembers", () => {
  it("a rollback a witness detected stays red, with every row of it gone, until an operator resolves it", async () => {
    const tenantId = await tenantWithEvents(6);
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", witnesses: ["witness.test/w1"] });
    const gone = (await t.db.auditSeal.findMany({ where: { tenantId, seq: { gte: 5 } }, select: { eventId: true } })).map((s) => s.eventId);
    // History shortened, and the checkpoints that would show it deleted.
    await asOwner(
      `DELETE FROM "AuditCheckpoint" WHERE "tenantId" = '${tenantId}'`,
      `DELETE FROM "AuditSeal" WHERE "eventId" IN (${gone.join(",")})`,
      `DELETE FROM "AuditEvent" WHERE id IN (${gone.join(",")})`,
    );
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed", size: 4n, witnesses: [] });
    vi.restoreAllMocks();
    // The tree checks out from the new checkpoint on; only the witness knew.
    expect((await evidenceStatus(t.db, tenantId)).result.ok).toBe(true);
    const page = await auditPage(tenantId);
    expect(page).toContain('role="alert"');
    expect(page).toContain("✗ Evidence verification failed");
    expect(page).toContain("has co-signed 6 entries of this log, more than its 4: the log was rolled back or forked.");
    expect(page).not.toContain("Evidence verified");
    expect(page).toContain(`npm run audit:resolve -- ${tenantId}`);

    expect(resolveAlarms(auditOrigin(tenantId), "restored from backup; witness state checked")).toBe(1);
    expect(await auditPage(tenantId)).toContain("✓ Evidence verified");
  });

  it("a failed full walk stays red after its rows are deleted", async () => {
    const tenantId = await tenantWithEvents(3);
    expect(await checkpointAuditLog(t.db, tenantId)).toMatchObject({ state: "signed" });
    const victim = (await t.db.auditSeal.findFirstOrThrow({ where: { tenantId, seq: 2 } })).eventId;
    await asOwner(`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim}`);
    expect(await verifyFully(t.db, tenantId)).toMatchObject({ ok: false });
    await asOwner(`DELETE FROM "AuditVerification" WHERE "tenantId" = '${tenantId}'`);
    // What the database still says: nothing ran, and the incremental check starts after the edit.
    const status = await evidenceStatus(t.db, tenantId);
    expect(status).toMatchObject({ lastFull: null, result: { ok: true } });
    const page = await auditPage(tenantId);
    expect(page).toContain("✗ Evidence verification failed");
    expect(page).toContain(`Event ${victim} (leaf 2) fails its MAC`);
    expect(page).toContain("A full verification");
  });
});
