import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createTestTenant } from "@/tests/factories";
import { databaseOf, statementsOf } from "@/tests/count-statements";
import { createDb, type Db } from "@/lib/db/client";
import { legacyBoundary } from "@/lib/audit/legacy-boundary";
import { appendAuditEvent, auditBodyOf } from "@/lib/audit/append-audit-event";
import { insertAuditEvent } from "@/lib/db/statements/audit/append-audit-event";
import { requestSeal, sealAllPending } from "@/lib/audit/seal-audit-chain";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

let db: Db;

const t = setUpTestDatabase();
beforeAll(async () => {
  db = createDb(t.url, { max: 4 });
  // Read once per client, not per pass (lib/audit/legacy-boundary.ts).
  await legacyBoundary(db);
});
afterAll(async () => {
  await db?.$disconnect();
});

const event = (tenantId: string, i: number) =>
  auditBodyOf({ tenantId, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task", id: `t${i}` }, data: { planner: "test", instructionLength: i } });

describe("sealing as a group commit", () => {
  it("one pass of four statements seals the new events of every tenant that asked, each into its own tree", async () => {
    const tenants = [await createTestTenant(t.db), await createTestTenant(t.db), await createTestTenant(t.db)];
    await sealAllPending(db);
    // Written without asking for a seal, so that the three requests below meet in one pass.
    for (const tenant of tenants) for (let i = 0; i < 5; i++) await insertAuditEvent(t.db, event(tenant.id, i));
    const sent = await statementsOf(databaseOf(t.url), () => Promise.all(tenants.map((tenant) => requestSeal(db, tenant.id))));
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(4);
    for (const tenant of tenants) {
      const unsealed = await t.db.auditEvent.count({ where: { tenantId: tenant.id, seal: null, quarantine: null } });
      expect(unsealed).toBe(0);
      expect((await verifyAuditChain(t.db, tenant.id, { kind: "full" })).problems).toEqual([]);
    }
  });

  it("a backlog larger than a pass reads is sealed whole, in order, before the request is answered", async () => {
    const tenant = await createTestTenant(t.db);
    await sealAllPending(db);
    for (let i = 0; i < 1_200; i += 200) {
      await Promise.all(Array.from({ length: 200 }, (_, k) => insertAuditEvent(t.db, event(tenant.id, i + k))));
    }
    await appendAuditEvent(db, { tenantId: tenant.id, actor: { type: "system", label: "x" }, type: "task.started", outcome: "ok", subject: { type: "task" }, data: { planner: "test", instructionLength: 1 } });
    await requestSeal(db, tenant.id);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, seal: null, quarantine: null } })).toBe(0);
    expect((await verifyAuditChain(t.db, tenant.id, { kind: "full" })).problems).toEqual([]);
  });
});
