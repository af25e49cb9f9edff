import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { requestSeal, sealAuditChain } from "@/lib/audit/seal-audit-chain";

let t: TestDatabase;
let a: TestTenant;

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createTestTenant(t.db);
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
afterAll(async () => t?.drop());

/** Tampering as a superuser would: with the append-only triggers of events and chain switched off. */
async function behindTheAppsBack(...statements: string[]) {
  await t.db.$transaction([
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditSeal" DISABLE TRIGGER USER`),
    ...statements.map((sql) => t.db.$executeRawUnsafe(sql)),
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditSeal" ENABLE TRIGGER USER`),
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
  ]);
}

/** The id of the event at `seq` in the tenant's chain. */
const eventAt = async (tenantId: string, seq: number) =>
  (await t.db.auditSeal.findFirstOrThrow({ where: { tenantId, seq } })).eventId;

describe("the audit log", () => {
  it("verifies when untouched", async () => {
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, checked: 12, unsealed: 0 });
  });

  it("writes an event unsealed, and sealing puts it on the chain after the last one", async () => {
    const other = await createTestTenant(t.db);
    const append = (i: number) =>
      t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
      );
    const first = await append(1);
    expect(await t.db.auditSeal.count({ where: { eventId: first.id } })).toBe(0);
    expect(await t.db.auditUnsealed.count({ where: { eventId: first.id } })).toBe(1);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 0, unsealed: 1 });

    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    await append(2);
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    expect(await sealAuditChain(t.db, other.id)).toBe(0);
    const chain = await t.db.auditSeal.findMany({ where: { tenantId: other.id }, orderBy: { seq: "asc" } });
    expect(chain.map((e) => e.seq)).toEqual([1n, 2n]);
    expect(chain[0].eventId).toBe(first.id);
    expect(chain[1].prevHash).toBe(chain[0].hash);
    expect(await t.db.auditUnsealed.count({ where: { tenantId: other.id } })).toBe(0);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 2, unsealed: 0 });
  });

  it("a tenant without a chain head (made before heads came with tenants) gets one at its first seal", async () => {
    const other = await createTestTenant(t.db);
    await t.db.auditHead.delete({ where: { tenantId: other.id } });
    await t.db.$transaction((tx) =>
      appendAuditEvent(tx, {
        tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" },
        data: { planner: "test", instructionLength: 0 },
      }),
    );
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    expect(await t.db.auditHead.findUniqueOrThrow({ where: { tenantId: other.id } })).toMatchObject({ seq: 1n, prevHash: "0".repeat(64) });
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 1, unsealed: 0 });
  });

  it("requestSeal settles only once everything written before the request is sealed, however many ask at once", async () => {
    const other = await createTestTenant(t.db);
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        // 60 transactions at once on a shared, busy machine: give each time to get a connection.
        const { id } = await t.db.$transaction((tx) =>
          appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
        { maxWait: 30_000, timeout: 30_000 });
        await requestSeal(t.db, other.id);
        // This writer's own event is on the chain by now.
        expect(await t.db.auditSeal.count({ where: { eventId: id } })).toBe(1);
      }),
    );
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 60, unsealed: 0 });
  });

  it("an event appended inside a transaction that rolls back is gone with it", async () => {
    // A transaction client must never be taken for the app's client (its statements would then
    // run outside the transaction and survive the rollback).
    const other = await createTestTenant(t.db);
    await expect(
      t.db.$transaction(async (tx) => {
        await appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: 0 } });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await t.db.auditEvent.count({ where: { tenantId: other.id } })).toBe(0);
    expect(await t.db.auditUnsealed.count({ where: { tenantId: other.id } })).toBe(0);
  });

  it.each(["UPDATE", "DELETE", "TRUNCATE"])("refuses %s of the chain itself", async (op) => {
    const sql = {
      UPDATE: `UPDATE "AuditSeal" SET hash = repeat('a', 64)`,
      DELETE: `DELETE FROM "AuditSeal"`,
      TRUNCATE: `TRUNCATE "AuditSeal"`,
    }[op]!;
    await expect(t.db.$executeRawUnsafe(sql)).rejects.toThrow(/append-only/);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, checked: 12 });
  });

  it.each(["UPDATE", "DELETE", "TRUNCATE"])("refuses %s through the database itself", async (op) => {
    const sql = {
      UPDATE: `UPDATE "AuditEvent" SET "actorLabel" = 'mallory'`,
      DELETE: `DELETE FROM "AuditEvent"`,
      TRUNCATE: `TRUNCATE "AuditEvent" CASCADE`,
    }[op]!;
    await expect(t.db.$executeRawUnsafe(sql)).rejects.toThrow(/append-only/);
    expect(await t.db.auditEvent.count({ where: { tenantId: a.id } })).toBe(12);
  });

  it("a concurrent burst of appends, each sealed by its own writer at once, keeps one gapless chain", async () => {
    // 40 writers on their own connections, each sealing right after its append: the sealers race
    // for the tenant's chain and every event is sealed exactly once, in one unforked sequence.
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        await t.db.$transaction((tx) =>
          appendAuditEvent(tx, {
            tenantId: a.id, actor: { type: "system", label: "burst" }, type: "task.started", outcome: "ok",
            subject: { type: "task", id: `b${i}` }, data: { planner: "burst", instructionLength: i },
          }),
        );
        await sealAuditChain(t.db, a.id);
      }),
    );
    const result = await verifyAuditChain(t.db, a.id);
    expect(result).toMatchObject({ ok: true, checked: 52, unsealed: 0 });
    const seals = await t.db.auditSeal.findMany({ where: { tenantId: a.id }, select: { seq: true, eventId: true } });
    expect(seals.map((e) => Number(e.seq)).sort((x, y) => x - y)).toEqual(Array.from({ length: 52 }, (_, i) => i + 1));
    expect(new Set(seals.map((e) => e.eventId)).size).toBe(52);
  });

  it("finds an event edited by a superuser with the triggers disabled, and names it", async () => {
    const victim = await eventAt(a.id, 5);
    await behindTheAppsBack(`UPDATE "AuditEvent" SET data = '{"planner": "event 4", "instructionLength": 99}' WHERE id = ${victim}`);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: false, firstBad: { seq: "5", id: String(victim), problem: "edited" } });
    await behindTheAppsBack(`UPDATE "AuditEvent" SET data = '{"planner": "event 4", "instructionLength": 4}' WHERE id = ${victim}`);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true });
  });

  it("finds a removed event", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    const victim = await eventAt(other.id, 2);
    await behindTheAppsBack(`DELETE FROM "AuditSeal" WHERE "eventId" = ${victim}`, `DELETE FROM "AuditEvent" WHERE id = ${victim}`);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: false, firstBad: { seq: "3", problem: "missing_or_reordered" } });
  });

  it("finds a removed tail (the newest events deleted)", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 3 });
    const victim = await eventAt(other.id, 3);
    await behindTheAppsBack(`DELETE FROM "AuditSeal" WHERE "eventId" = ${victim}`, `DELETE FROM "AuditEvent" WHERE id = ${victim}`);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: false, firstBad: { seq: "3", problem: "tail_removed" } });
  });

  it("finds reordered events (swapped sequence numbers)", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    await behindTheAppsBack(
      `UPDATE "AuditSeal" SET seq = CASE seq WHEN 1 THEN 2 ELSE 1 END + 1000 WHERE "tenantId" = '${other.id}' AND seq IN (1, 2)`,
      `UPDATE "AuditSeal" SET seq = seq - 1000 WHERE "tenantId" = '${other.id}' AND seq > 1000`,
    );
    const result = await verifyAuditChain(t.db, other.id);
    expect(result.ok).toBe(false);
    expect(result.firstBad?.seq).toBe("1");
  });
});
