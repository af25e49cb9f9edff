import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";

let t: TestDatabase;
let a: TestTenant;

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createTestTenant(t.db);
  for (let i = 0; i < 12; i++) {
    await t.db.$transaction((tx) =>
      appendAuditEvent(tx, {
        tenantId: a.id, actor: { type: "system", label: "test" }, type: "test.event", outcome: "ok",
        subject: { type: "test", id: String(i) }, data: { i, note: `event ${i}` },
      }),
    );
  }
  await sealAuditChain(t.db, a.id);
});
afterAll(async () => t?.drop());

/** Tampering as a superuser would: with the append-only triggers switched off. */
async function behindTheAppsBack(sql: string) {
  await t.db.$transaction([
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
    t.db.$executeRawUnsafe(sql),
    t.db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
  ]);
}

describe("the audit log", () => {
  it("verifies when untouched", async () => {
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, checked: 12, unsealed: 0 });
  });

  it("writes an event unsealed, and sealing puts it on the chain after the last one", async () => {
    const other = await createTestTenant(t.db);
    const append = (i: number) =>
      t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "t", outcome: "ok", subject: { type: "t" }, data: { i } }),
      );
    const first = await append(1);
    const unsealed = await t.db.auditEvent.findUniqueOrThrow({ where: { id: first.id } });
    expect(unsealed).toMatchObject({ seq: null, prevHash: null, hash: null });
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 0, unsealed: 1 });

    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    await append(2);
    expect(await sealAuditChain(t.db, other.id)).toBe(1);
    expect(await sealAuditChain(t.db, other.id)).toBe(0);
    const chain = await t.db.auditEvent.findMany({ where: { tenantId: other.id }, orderBy: { seq: "asc" } });
    expect(chain.map((e) => e.seq)).toEqual([1n, 2n]);
    expect(chain[1].prevHash).toBe(chain[0].hash);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 2, unsealed: 0 });
  });

  it("refuses every update but sealing: no other column may change, and a sealed event stays as it is", async () => {
    const other = await createTestTenant(t.db);
    const { id } = await t.db.$transaction((tx) =>
      appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "t", outcome: "ok", subject: { type: "t" }, data: {} }),
    );
    const h = "a".repeat(64);
    // "Sealing" that also rewrites who did it.
    await expect(
      t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET seq = 1, "prevHash" = '${h}', hash = '${h}', "actorLabel" = 'mallory' WHERE id = ${id}`),
    ).rejects.toThrow(/append-only/);
    // Half a seal.
    await expect(t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET seq = 1 WHERE id = ${id}`)).rejects.toThrow(/append-only/);
    await sealAuditChain(t.db, other.id);
    // Re-sealing a sealed event with another hash.
    await expect(t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET hash = '${h}' WHERE id = ${id}`)).rejects.toThrow(/append-only/);
    await expect(t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET seq = NULL, "prevHash" = NULL, hash = NULL WHERE id = ${id}`)).rejects.toThrow(/append-only/);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 1 });
  });

  it.each(["UPDATE", "DELETE", "TRUNCATE"])("refuses %s through the database itself", async (op) => {
    const sql = {
      UPDATE: `UPDATE "AuditEvent" SET "actorLabel" = 'mallory'`,
      DELETE: `DELETE FROM "AuditEvent"`,
      TRUNCATE: `TRUNCATE "AuditEvent"`,
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
            tenantId: a.id, actor: { type: "system", label: "burst" }, type: "test.burst", outcome: "ok",
            subject: { type: "test", id: `b${i}` }, data: { i },
          }),
        );
        await sealAuditChain(t.db, a.id);
      }),
    );
    const result = await verifyAuditChain(t.db, a.id);
    expect(result).toMatchObject({ ok: true, checked: 52, unsealed: 0 });
    const seqs = (await t.db.auditEvent.findMany({ where: { tenantId: a.id }, select: { seq: true } })).map((e) => Number(e.seq));
    expect(seqs.sort((x, y) => x - y)).toEqual(Array.from({ length: 52 }, (_, i) => i + 1));
  });

  it("finds an event edited by a superuser with the triggers disabled, and names it", async () => {
    await behindTheAppsBack(`UPDATE "AuditEvent" SET data = '{"i": 99, "note": "event 4"}' WHERE "tenantId" = '${a.id}' AND seq = 5`);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: false, firstBad: { seq: "5", problem: "edited" } });
    await behindTheAppsBack(`UPDATE "AuditEvent" SET data = '{"i": 4, "note": "event 4"}' WHERE "tenantId" = '${a.id}' AND seq = 5`);
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true });
  });

  it("finds a removed event", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "t", outcome: "ok", subject: { type: "t" }, data: { i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    await behindTheAppsBack(`DELETE FROM "AuditEvent" WHERE "tenantId" = '${other.id}' AND seq = 2`);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: false, firstBad: { seq: "3", problem: "missing_or_reordered" } });
  });

  it("finds a removed tail (the newest events deleted)", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "t", outcome: "ok", subject: { type: "t" }, data: { i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: true, checked: 3 });
    await behindTheAppsBack(`DELETE FROM "AuditEvent" WHERE "tenantId" = '${other.id}' AND seq = 3`);
    expect(await verifyAuditChain(t.db, other.id)).toMatchObject({ ok: false, firstBad: { seq: "3", problem: "tail_removed" } });
  });

  it("finds reordered events (swapped sequence numbers)", async () => {
    const other = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await t.db.$transaction((tx) =>
        appendAuditEvent(tx, { tenantId: other.id, actor: { type: "system", label: "x" }, type: "t", outcome: "ok", subject: { type: "t" }, data: { i } }),
      );
    }
    await sealAuditChain(t.db, other.id);
    await behindTheAppsBack(
      `UPDATE "AuditEvent" SET seq = CASE seq WHEN 1 THEN 2 ELSE 1 END + 1000 WHERE "tenantId" = '${other.id}' AND seq IN (1, 2)`,
    );
    await behindTheAppsBack(`UPDATE "AuditEvent" SET seq = seq - 1000 WHERE "tenantId" = '${other.id}' AND seq > 1000`);
    const result = await verifyAuditChain(t.db, other.id);
    expect(result.ok).toBe(false);
    expect(result.firstBad?.seq).toBe("1");
  });
});
