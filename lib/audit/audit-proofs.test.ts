import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { auditConsistencyProof, auditInclusionProof, auditLogInfo } from "@/lib/audit/audit-proofs";
import { auditLeafBytes, type AuditLeaf } from "@/lib/audit/audit-record";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";
import { fromHex, leafHash, toHex, verifyConsistency, verifyInclusion } from "@/lib/audit/transparency/merkle";
import { parseCheckpoint, parseVerifierKey, verifyNote } from "@/lib/audit/transparency/signed-note";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const append = (tenantId: string, i: number) =>
  appendAuditEvent(t.db, { tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task", id: `t${i}` }, data: { planner: "test", instructionLength: i } });

beforeAll(async () => {
  for (let i = 0; i < 7; i++) await append(a.id, i);
  await sealAuditChain(t.db, a.id);
});

async function collect(lines: AsyncGenerator<string>): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const line of lines) out.push(JSON.parse(line) as Record<string, unknown>);
  return out;
}

describe("audit proofs", () => {
  it("a checkpoint is a C2SP note signed by the published key, for this tenant's log", async () => {
    const signed = await checkpointAuditLog(t.db, a.id);
    expect(signed).toMatchObject({ state: "signed" });
    const info = await auditLogInfo(t.db, a.id);
    const verified = verifyNote(info.checkpoint!.note, [parseVerifierKey(info.verifierKey)]);
    expect(verified.verified).toHaveLength(1);
    const checkpoint = parseCheckpoint(verified.body);
    expect(checkpoint).toMatchObject({ origin: info.origin, size: Number(info.treeSize) });
    expect(toHex(checkpoint.rootHash)).toBe(info.checkpoint!.rootHash);
    expect(info.origin.endsWith(`/${a.id}`)).toBe(true);
  });

  it("every event's inclusion proof verifies against the signed root, and a wrong leaf or index does not", async () => {
    const info = await auditLogInfo(t.db, a.id);
    const root = fromHex(info.checkpoint!.rootHash);
    const size = Number(info.checkpoint!.size);
    for (let seq = 1; seq <= size; seq++) {
      const proof = await auditInclusionProof(t.db, a.id, { seq: BigInt(seq) });
      expect(proof.checkpoint?.size).toBe(String(size));
      const path = proof.path.map(fromHex);
      expect(verifyInclusion(fromHex(proof.leafHash), seq - 1, size, path, root)).toBe(true);
      expect(verifyInclusion(fromHex(proof.leafHash), seq % size, size, path, root)).toBe(seq % size === seq - 1);
      expect(verifyInclusion(leafHash(Buffer.from("forged")), seq - 1, size, path, root)).toBe(false);
    }
  });

  it("a later checkpoint is provably consistent with an earlier one", async () => {
    const before = await auditLogInfo(t.db, a.id);
    for (let i = 0; i < 5; i++) await append(a.id, 100 + i);
    expect(await checkpointAuditLog(t.db, a.id)).toMatchObject({ state: "signed", size: 12n });
    const after = await auditLogInfo(t.db, a.id);
    const proof = await auditConsistencyProof(t.db, a.id, { from: BigInt(before.checkpoint!.size) });
    expect(proof).toMatchObject({ from: before.checkpoint!.size, to: "12" });
    expect(verifyConsistency(Number(proof.from), 12, fromHex(before.checkpoint!.rootHash), fromHex(after.checkpoint!.rootHash), proof.path.map(fromHex))).toBe(true);
  });

  it("refuses a leaf or size outside the tree with a clear error", async () => {
    await expect(auditInclusionProof(t.db, a.id, { seq: 0n })).rejects.toThrow(/seq must be between 1 and/);
    await expect(auditInclusionProof(t.db, a.id, { seq: 1n, treeSize: 10_000n })).rejects.toThrow(/treeSize must be between 1 and 12/);
    await expect(auditConsistencyProof(t.db, a.id, { from: 13n })).rejects.toThrow(/from must be between 1 and 12/);
    const empty = await createTestTenant(t.db);
    await expect(auditInclusionProof(t.db, empty.id, { seq: 1n })).rejects.toThrow(/between 1 and 0/);
  });

  it("the JSONL export holds every leaf (hashing to the stored leaf), the checkpoints and the proofs between them", async () => {
    const lines = await collect(verifiableExportLines(t.db, { tenantId: a.id, filters: {} }));
    const [header, ...rest] = lines;
    expect(header).toMatchObject({ kind: "countersign.audit-export", version: 1, tenantId: a.id, complete: true, fromSeq: "1" });
    const events = rest.filter((l) => l.kind === "event") as Array<{ seq: string; leaf: AuditLeaf }>;
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => String(i + 1)));
    for (const event of events) {
      const proof = await auditInclusionProof(t.db, a.id, { seq: BigInt(event.seq), treeSize: BigInt(events.length) });
      expect(toHex(leafHash(auditLeafBytes(event.leaf)))).toBe(proof.leafHash);
    }
    expect(rest.filter((l) => l.kind === "checkpoint").length).toBeGreaterThanOrEqual(2);
    expect(rest.filter((l) => l.kind === "consistency").length).toBeGreaterThanOrEqual(1);
  });

  it("a filtered export carries an inclusion proof per event", async () => {
    const lines = await collect(verifiableExportLines(t.db, { tenantId: a.id, filters: { type: "task.started" } }));
    const events = lines.filter((l) => l.kind === "event") as Array<{ seq: string; leaf: AuditLeaf; inclusion: { treeSize: string; path: string[] } }>;
    expect(lines[0]).toMatchObject({ complete: false });
    expect(events.length).toBeGreaterThan(0);
    const root = fromHex((await auditLogInfo(t.db, a.id)).checkpoint!.rootHash);
    for (const e of events) {
      expect(verifyInclusion(leafHash(auditLeafBytes(e.leaf)), Number(e.seq) - 1, Number(e.inclusion.treeSize), e.inclusion.path.map(fromHex), root)).toBe(true);
    }
  });
});

describe("the process's audit key", () => {
  it("is accepted when it signed the log, and refused in one line when it did not", async () => {
    const { auditKeyProblem } = await import("@/lib/audit/audit-keys");
    expect(await auditKeyProblem(t.db)).toBeNull();
    const own = process.env.AUDIT_SIGNING_KEY;
    process.env.AUDIT_SIGNING_KEY = Buffer.alloc(32, 9).toString("base64");
    try {
      expect(await auditKeyProblem(t.db)).toMatch(/^This process's audit signing key \(countersign-audit\+[0-9a-f]{8}\+.*\) is not the one that signed this database's audit log: set AUDIT_SIGNING_KEY/);
    } finally {
      process.env.AUDIT_SIGNING_KEY = own;
    }
  });
});
