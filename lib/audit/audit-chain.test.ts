import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

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
    expect(await verifyAuditChain(t.db, a.id)).toMatchObject({ ok: true, checked: 12 });
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

  it("a concurrent burst of appends keeps one gapless chain", async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.db.$transaction((tx) =>
          appendAuditEvent(tx, {
            tenantId: a.id, actor: { type: "system", label: "burst" }, type: "test.burst", outcome: "ok",
            subject: { type: "test", id: `b${i}` }, data: { i },
          }),
        ),
      ),
    );
    const result = await verifyAuditChain(t.db, a.id);
    expect(result).toMatchObject({ ok: true, checked: 52 });
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
    await behindTheAppsBack(
      `UPDATE "AuditEvent" SET seq = CASE seq WHEN 1 THEN 2 ELSE 1 END + 1000 WHERE "tenantId" = '${other.id}' AND seq IN (1, 2)`,
    );
    await behindTheAppsBack(`UPDATE "AuditEvent" SET seq = seq - 1000 WHERE "tenantId" = '${other.id}' AND seq > 1000`);
    const result = await verifyAuditChain(t.db, other.id);
    expect(result.ok).toBe(false);
    expect(result.firstBad?.seq).toBe("1");
  });
});
