import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { requestSeal, sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

beforeAll(async () => {
  for (let i = 0; i < 12; i++) {
    await t.db.$transaction((tx) =>
      appendAuditEvent(tx, {
        tenantId: a.id, actor: { type: "system", label: "test" }, type: "task.started", outcome: "ok",
        subject: { type: "task", id: String(i) }, data: { planner: `event ${i}`, instructionLength: i },
      }),
    );
  }
  await sealAuditChain(t.db, a.id);
});

/** Tampering as the tables' owner (a superuser) would: with the append-only triggers switched off. */
async function behindTheAppsBack(...statements: string[]) {
  await t.ownerDb.$transaction([
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditSeal" DISABLE TRIGGER USER`),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditCheckpoint" DISABLE TRIGGER USER`),
    ...statements.map((sql) => t.ownerDb.$executeRawUnsafe(sql)),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditCheckpoint" ENABLE TRIGGER USER`),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditSeal" ENABLE TRIGGER USER`),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
  ]);
}

/** The id of the event at `seq` in the tenant's chain. */
const eventAt = async (tenantId: string, seq: number) =>
  (await t.db.auditSeal.findFirstOrThrow({ where: { tenantId, seq } })).eventId;

/** A fresh tenant with `n` sealed events. */
async function tenantWithEvents(n: number): Promise<TestTenant> {
  const other = await createTestTenant(t.db);
  for (let i = 0; i < n; i++) await append(other.id, i);
  await sealAuditChain(t.db, other.id);
  return other;
}

const append = (tenantId: string, i: number) =>
  t.db.$transaction((tx) =>
    appendAuditEvent(tx, { tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
  );

/** A row a database writer inserts directly: shaped like the console's, but it has no key for the MAC. */
const forgedInsert = (tenantId: string, mac: string | null) => `INSERT INTO "AuditEvent" ("tenantId", uid, mac, "actorType", "actorLabel", type, outcome, "subjectType", "reviewerId", verdict, data)
  VALUES ('${tenantId}', gen_random_uuid(), ${mac === null ? "NULL" : `'${mac}'`}, 'user', 'reviewer@demo.test', 'decision.recorded', 'ok', 'action', NULL, 'approve', '{"note": null}')`;

const problemsOf = async (tenantId: string, kind: "full" | "incremental" = "incremental") =>
  (await verifyAuditChain(t.db, tenantId, { kind })).problems.map((p) => ({ problem: p.problem, seq: p.seq, eventId: p.eventId }));

describe("the audit log", () => {
  it("verifies when untouched, incrementally and in full", async () => {
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, checked: 12, treeSize: 12n, unsealed: 0, problems: [] });
    expect(await verifyAuditChain(t.db, a.id, { kind: "full" })).toMatchObject({ ok: true, checked: 12 });
  });

  it("writes an event unsealed, and sealing makes it the next leaf", async () => {
    const other = await createTestTenant(t.db);
    const first = await append(other.id, 1);
    expect(await t.db.auditSeal.count({ where: { eventId: first.id } })).toBe(0);
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    await append(other.id, 2);
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    expect(await sealAuditChain(t.db, other.id)).toBe(0);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 2, treeSize: 2n });
  });

  it("requestSeal settles only once everything written before the request is sealed, however many ask at once", async () => {
    const other = await createTestTenant(t.db);
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const { id } = await t.db.$transaction((tx) =>
          appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
        { maxWait: 30_000, timeout: 30_000 });
        await requestSeal(t.db, other.id);
        expect(await t.db.auditSeal.count({ where: { eventId: id } })).toBe(1);
      }),
    );
    expect(await verifyAuditChain(t.db, other.id, { kind: "full" })).toMatchObject({ ok: true, checked: 60, unsealed: 0 });
  });

  it("an event appended inside a transaction that rolls back is gone with it", async () => {
    const other = await createTestTenant(t.db);
    await expect(
      t.db.$transaction(async (tx) => {
        await appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: 0 } });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await t.db.auditEvent.count({ where: { tenantId: other.id } })).toBe(0);
  });

  it("an event whose transaction commits after a later one was sealed is still sealed (the xid floor)", async () => {
    const other = await createTestTenant(t.db);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const slowWrote = new Promise<void>((resolve) => (written = resolve));
    // A long transaction writes its event first (lower id), then waits while later events are sealed.
    const slow = t.db.$transaction(async (tx) => {
      await appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "slow" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "slow", instructionLength: 0 } });
      written();
      await held;
    }, { timeout: 30_000 });
    // Its event is written before the later one (a fixed pause might not be long enough on a loaded machine).
    await Promise.race([slowWrote, slow]);
    await append(other.id, 1);
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    release();
    await slow;
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    expect(await verifyAuditChain(t.db, other.id, { kind: "full" })).toMatchObject({ ok: true, checked: 2, unsealed: 0 });
  });

  it.each(["AuditSeal", "AuditCheckpoint", "AuditVerification", "AuditQuarantine", "AuditEvent"])("refuses UPDATE, DELETE and TRUNCATE of %s, by right and by trigger", async (table) => {
    // Rows in every table (a row trigger fires only for rows): a quarantined forgery, a checkpoint and its check.
    const other = await tenantWithEvents(1);
    await t.db.$executeRawUnsafe(forgedInsert(other.id, null));
    await checkpointAuditLog(t.db, other.id);
    for (const sql of [`UPDATE "${table}" SET "tenantId" = "tenantId"`, `DELETE FROM "${table}"`, `TRUNCATE "${table}" CASCADE`]) {
      // The console's role has no such right; the owner, who has, is stopped by the trigger.
      await expect(t.db.$executeRawUnsafe(sql)).rejects.toThrow(/permission denied/);
      await expect(t.ownerDb.$executeRawUnsafe(sql)).rejects.toThrow(/append-only/);
    }
  });

  it("a concurrent burst of appends, each sealed by its own writer at once, keeps one unforked tree", async () => {
    const other = await tenantWithEvents(0);
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        await append(other.id, i);
        await sealAuditChain(t.db, other.id);
      }),
    );
    expect(await verifyAuditChain(t.db, other.id, { kind: "full" })).toMatchObject({ ok: true, checked: 40, unsealed: 0 });
    const seals = await t.db.auditSeal.findMany({ where: { tenantId: other.id }, select: { seq: true, eventId: true } });
    expect(seals.map((e) => Number(e.seq)).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(seals.map((e) => e.eventId)).size).toBe(40);
  });

  it("a forged INSERT — no MAC, or a made-up one — is never sealed, and is named without any checkpoint", async () => {
    const other = await tenantWithEvents(2);
    await t.db.$executeRawUnsafe(forgedInsert(other.id, null));
    await t.db.$executeRawUnsafe(forgedInsert(other.id, "ab".repeat(32)));
    await sealAuditChain(t.db, other.id);
    const forged = await t.db.auditEvent.findMany({ where: { tenantId: other.id, actorLabel: "reviewer@demo.test" }, select: { id: true } });
    expect(await t.db.auditSeal.count({ where: { eventId: { in: forged.map((f) => f.id) } } })).toBe(0);
    const result = await verifyAuditChain(t.db, other.id);
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => [p.problem, p.eventId])).toEqual(forged.map((f) => ["quarantined", String(f.id)]));
    // A checkpoint still vouches for the genuine tree, and only for it.
    expect(await checkpointAuditLog(t.db, other.id)).toMatchObject({ state: "signed", size: 2n });
  });

  it("finds an event edited after sealing (triggers off), and names it", async () => {
    const other = await tenantWithEvents(5);
    const victim = await eventAt(other.id, 3);
    await behindTheAppsBack(`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim}`);
    expect(await problemsOf(other.id)).toEqual([
      { problem: "forged", seq: "3", eventId: String(victim) },
      { problem: "edited", seq: "3", eventId: String(victim) },
    ]);
  });

  it("finds an edit whose leaf and later subtrees were recomputed (everything but the key): the seal's MAC fails", async () => {
    const other = await tenantWithEvents(4);
    const victim = await eventAt(other.id, 4);
    const seal = await t.db.auditSeal.findFirstOrThrow({ where: { eventId: victim } });
    await behindTheAppsBack(`UPDATE "AuditSeal" SET "leafHash" = '${"cd".repeat(32)}' WHERE "eventId" = ${victim}`);
    const problems = await problemsOf(other.id);
    expect(problems).toContainEqual({ problem: "seal_forged", seq: "4", eventId: String(victim) });
    expect(problems).toContainEqual({ problem: "edited", seq: "4", eventId: String(victim) });
    expect(seal.leafHash).not.toBe("cd".repeat(32));
  });

  it("finds a removed event in the middle", async () => {
    const other = await tenantWithEvents(3);
    const victim = await eventAt(other.id, 2);
    await behindTheAppsBack(`DELETE FROM "AuditSeal" WHERE "eventId" = ${victim}`, `DELETE FROM "AuditEvent" WHERE id = ${victim}`);
    expect(await problemsOf(other.id)).toEqual([{ problem: "missing", seq: "2", eventId: undefined }]);
  });

  it("finds reordered events (swapped positions)", async () => {
    const other = await tenantWithEvents(3);
    await behindTheAppsBack(
      `UPDATE "AuditSeal" SET seq = CASE seq WHEN 1 THEN 2 ELSE 1 END + 1000 WHERE "tenantId" = '${other.id}' AND seq IN (1, 2)`,
      `UPDATE "AuditSeal" SET seq = seq - 1000 WHERE "tenantId" = '${other.id}' AND seq > 1000`,
    );
    const problems = await problemsOf(other.id);
    expect(problems[0]).toMatchObject({ problem: "edited", seq: "1" });
    expect(problems.some((p) => p.problem === "seal_forged")).toBe(true);
  });

  it("finds the newest events removed after a checkpoint (a rollback), even with the head rewritten", async () => {
    const other = await tenantWithEvents(5);
    expect(await checkpointAuditLog(t.db, other.id)).toMatchObject({ state: "signed", size: 5n });
    const victims = [await eventAt(other.id, 4), await eventAt(other.id, 5)];
    await behindTheAppsBack(`DELETE FROM "AuditSeal" WHERE "eventId" IN (${victims.join(",")})`, `DELETE FROM "AuditEvent" WHERE id IN (${victims.join(",")})`);
    expect((await problemsOf(other.id))[0]).toMatchObject({ problem: "rolled_back", seq: "4" });
    // And no new checkpoint is signed over the shortened tree.
    expect(await checkpointAuditLog(t.db, other.id)).toMatchObject({ state: "refused" });
  });

  it("a full walk finds an event edited before the latest checkpoint; the incremental check starts after it", async () => {
    const other = await tenantWithEvents(4);
    await checkpointAuditLog(t.db, other.id);
    const victim = await eventAt(other.id, 2);
    await behindTheAppsBack(`UPDATE "AuditEvent" SET "actorLabel" = 'mallory@evil.test' WHERE id = ${victim}`);
    expect(await problemsOf(other.id)).toEqual([]);
    expect((await problemsOf(other.id, "full"))[0]).toMatchObject({ problem: "forged", seq: "2" });
  });

  it("a rewritten subtree under the latest checkpoint fails the incremental check against it", async () => {
    const other = await tenantWithEvents(4);
    await checkpointAuditLog(t.db, other.id);
    await behindTheAppsBack(`UPDATE "AuditSeal" SET nodes = ARRAY['${"ee".repeat(32)}', '${"ff".repeat(32)}'] WHERE "tenantId" = '${other.id}' AND seq = 4`);
    expect((await problemsOf(other.id))[0]).toMatchObject({ problem: "checkpoint_mismatch" });
  });

  it("a checkpoint not signed by the console's key is named", async () => {
    const other = await tenantWithEvents(2);
    await checkpointAuditLog(t.db, other.id);
    await behindTheAppsBack(`UPDATE "AuditCheckpoint" SET note = replace(note, E'\n2\n', E'\n3\n') WHERE "tenantId" = '${other.id}'`);
    expect((await problemsOf(other.id))[0]).toMatchObject({ problem: "checkpoint_signature" });
  });

  it("a full walk reads the checkpoints a page at a time in step with the leaves: every one is checked, across pages and ties of size", async () => {
    const other = await tenantWithEvents(2);
    await checkpointAuditLog(t.db, other.id);
    await append(other.id, 2);
    await sealAuditChain(t.db, other.id);
    await checkpointAuditLog(t.db, other.id);
    // 1,500 more rows of the checkpoint at two leaves (as "checkpoint now" makes at one size): more than a page.
    await behindTheAppsBack(`INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
      SELECT "tenantId", size, "rootHash", frontier, note, witnesses FROM "AuditCheckpoint", generate_series(1, 1500)
      WHERE "tenantId" = '${other.id}' AND size = 2`);
    expect(await problemsOf(other.id, "full")).toEqual([]);
    // An export carries one checkpoint per size, chosen by the query (not all read to be picked from).
    const lines: string[] = [];
    for await (const line of verifiableExportLines(t.db, { tenantId: other.id, filters: {} })) lines.push(line);
    const notes = lines.map((line) => JSON.parse(line) as { kind: string; note?: string }).filter((l) => l.kind === "checkpoint").map((l) => l.note?.split("\n")[1]);
    expect(notes).toEqual(["2", "3"]);
    // The last of them, on the second page, now says another root than the one it signed.
    const last = await t.db.auditCheckpoint.findFirstOrThrow({ where: { tenantId: other.id, size: 2 }, orderBy: { id: "desc" } });
    await behindTheAppsBack(`UPDATE "AuditCheckpoint" SET "rootHash" = '${"ab".repeat(32)}' WHERE id = ${last.id}`);
    const problems = (await verifyAuditChain(t.db, other.id, { kind: "full" })).problems;
    expect(problems.map((p) => p.problem)).toEqual(["checkpoint_signature", "checkpoint_mismatch"]);
    expect(problems.every((p) => p.message.includes(`checkpoint ${last.id}`) || p.message.includes(`Checkpoint ${last.id}`))).toBe(true);
  });

  it("an event hidden from sealing (a forged transaction id) is named by the full walk", async () => {
    const other = await tenantWithEvents(2);
    await t.db.$executeRawUnsafe(forgedInsert(other.id, null).replace('"tenantId", uid', '"tenantId", xid, uid').replace(`VALUES ('${other.id}', `, `VALUES ('${other.id}', '1'::xid8, `));
    await behindTheAppsBack(`UPDATE "AuditEvent" SET at = at - interval '1 hour' WHERE "tenantId" = '${other.id}' AND "actorLabel" = 'reviewer@demo.test'`);
    expect(await sealAuditChain(t.db, other.id)).toBe(0);
    expect((await problemsOf(other.id, "full")).map((p) => p.problem)).toEqual(["unsealed"]);
  });
});

describe("what /audit does on a visit", () => {
  it("reads only: the incremental check writes no event, seal, checkpoint or verification, even with events waiting to be sealed", async () => {
    const other = await tenantWithEvents(3);
    await checkpointAuditLog(t.db, other.id);
    await append(other.id, 99); // written, not yet sealed
    const counts = () => Promise.all([t.db.auditEvent.count(), t.db.auditSeal.count(), t.db.auditCheckpoint.count(), t.db.auditVerification.count(), t.db.auditQuarantine.count()]);
    const before = await counts();
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, treeSize: 3n });
    expect(await counts()).toEqual(before);
  });
});
