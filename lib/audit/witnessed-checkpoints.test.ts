import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditKeys } from "@/lib/audit/audit-keys";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { SIG_COSIGNATURE_V1, noteSigner, parseVerifierKey, verifierKey, verifyNote } from "@/lib/audit/transparency/signed-note";
import { startWitnessServer, type RunningWitness } from "@/lib/audit/transparency/witness-server";
import { readAuditCheckpoints } from "@/lib/db/statements/audit/read-audit-checkpoints";

/** The console and a real witness (the one `npm run witness` starts) over HTTP. */
const t = setUpTestDatabase();
let witness: RunningWitness;
const witnessSigner = noteSigner("witness.test/w1", randomBytes(32), SIG_COSIGNATURE_V1);
const witnessKey = verifierKey(witnessSigner.name, witnessSigner.publicKey, SIG_COSIGNATURE_V1);

beforeAll(async () => {
  witness = await startWitnessServer({
    signer: witnessSigner, logKeys: [auditKeys().verifier], port: 0,
    stateFile: path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-witness-")), "state.jsonl"),
  });
  vi.stubEnv("AUDIT_WITNESS_URLS", witness.url);
  vi.stubEnv("AUDIT_WITNESS_KEYS", witnessKey);
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  vi.unstubAllEnvs();
  await witness?.close();
});

const append = (tenantId: string, i: number) =>
  appendAuditEvent(t.db, { tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } });

describe("witnessed checkpoints", () => {
  it("each checkpoint carries the witness's cosignature, and growth is proven to it", async () => {
    const tenant = await createTestTenant(t.db);
    for (let i = 0; i < 5; i++) await append(tenant.id, i);
    expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", size: 5n, witnesses: ["witness.test/w1"] });
    for (let i = 0; i < 4; i++) await append(tenant.id, 10 + i);
    expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", size: 9n, witnesses: ["witness.test/w1"] });
    const [latest] = await readAuditCheckpoints(t.db, { tenantId: tenant.id, limit: 1 });
    const verified = verifyNote(latest.note, [auditKeys().verifier, parseVerifierKey(witnessKey)]);
    expect(verified.verified.map((v) => v.key.name).sort()).toEqual([auditKeys().name, "witness.test/w1"].sort());
  });

  it("a history rewritten behind the console's back (checkpoints deleted, tree shortened) gets no cosignature", async () => {
    const tenant = await createTestTenant(t.db);
    for (let i = 0; i < 6; i++) await append(tenant.id, i);
    expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", witnesses: ["witness.test/w1"] });
    const gone = (await t.db.auditSeal.findMany({ where: { tenantId: tenant.id, seq: { gte: 5 } }, select: { eventId: true } })).map((s) => s.eventId);
    await t.ownerDb.$transaction([
      ...["AuditEvent", "AuditSeal", "AuditCheckpoint"].map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" DISABLE TRIGGER USER`)),
      t.ownerDb.$executeRawUnsafe(`DELETE FROM "AuditCheckpoint" WHERE "tenantId" = '${tenant.id}'`),
      t.ownerDb.$executeRawUnsafe(`DELETE FROM "AuditSeal" WHERE "eventId" IN (${gone.join(",")})`),
      t.ownerDb.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE id IN (${gone.join(",")})`),
      ...["AuditEvent", "AuditSeal", "AuditCheckpoint"].map((table) => t.ownerDb.$executeRawUnsafe(`ALTER TABLE "${table}" ENABLE TRIGGER USER`)),
    ]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    // The console, unaware, signs the shortened tree; the witness, which saw 6, will not co-sign 4.
    expect(await checkpointAuditLog(t.db, tenant.id)).toMatchObject({ state: "signed", size: 4n, witnesses: [] });
    expect(errors.mock.calls.flat().join(" ")).toMatch(/has co-signed 6 entries .* more than its 4: the log was rolled back or forked/);
  });
});
