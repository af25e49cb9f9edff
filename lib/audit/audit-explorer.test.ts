import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { appendAuditEvent, type AuditEventInput } from "@/lib/audit/append-audit-event";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";
import type { AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";
import type { AuditFilters } from "@/lib/audit/audit-filters";
import { getAuditCharts, MAX_CHART_DAYS } from "@/lib/audit/audit-charts";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { expireDueActions } from "@/lib/approvals/expire-actions";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);
/** Tenant a's events in the order written, with what each was written as. */
const written: Array<{ id: bigint; input: AuditEventInput }> = [];

const REVIEWER = "00000000-0000-4000-8000-0000000000aa";

/**
 * 30 events in tenant a, every filterable column varied, the first 20 moved onto two past days.
 * Their types and data are real ones (task.started, task.completed), so they fit the event schemas.
 */
function eventInput(i: number, tenantId: string): AuditEventInput {
  return {
    tenantId,
    actor: { type: i % 2 ? "user" : "system", id: null, label: i === 7 ? "Ann 100%_sure" : `actor-${i % 3}` },
    ...(i % 5 === 0 ? { type: "task.completed" as const, data: { error: null } } : { type: "task.started" as const, data: { planner: "test", instructionLength: i } }),
    outcome: "ok",
    subject: { type: "action", id: String(i) },
    tool: i % 4 === 0 ? "refund_invoice" : "get_invoice",
    verdict: i % 5 === 0 ? (i % 10 === 0 ? "approve" : "reject") : null,
    riskLevel: i % 3 === 0 ? "high" : "low",
    reviewerId: i % 5 === 0 ? REVIEWER : null,
    requester: i % 6 === 0 ? "agent:billing" : "agent:support",
    status: i % 7 === 0 ? "approved" : "pending",
  };
}

/** Edits behind the app's back, as a superuser would: the append-only triggers are off meanwhile. */
async function behindTheAppsBack(sql: string) {
  await t.ownerDb.$transaction([
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`),
    t.ownerDb.$executeRawUnsafe(sql),
    t.ownerDb.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`),
  ]);
}

beforeAll(async () => {
  // The factories write events of their own; only these are looked for below.
  for (let i = 0; i < 30; i++) {
    const input = eventInput(i, a.id);
    const { id } = await appendAuditEvent(t.db, input);
    written.push({ id, input });
    await appendAuditEvent(t.db, eventInput(i, b.id));
  }
  // Ids grow with time: the first ten on 2025-01-10, the next ten on 2025-01-11, the rest today.
  const ids = (from: number, to: number) => written.slice(from, to).map((w) => w.id).join(", ");
  await behindTheAppsBack(`UPDATE "AuditEvent" SET at = '2025-01-10T12:00:00Z'::timestamptz + (id % 1000) * interval '1 second' WHERE id IN (${ids(0, 10)})`);
  await behindTheAppsBack(`UPDATE "AuditEvent" SET at = '2025-01-11T12:00:00Z'::timestamptz + (id % 1000) * interval '1 second' WHERE id IN (${ids(10, 20)})`);
  // Everything written before the test events (the factories' own) moves back before them.
  await behindTheAppsBack(`UPDATE "AuditEvent" SET at = '2024-12-01T00:00:00Z' WHERE id < ${written[0].id}`);
});

/** Every page of a search, newest first, following the cursor. */
async function allPages(filters: AuditFilters, options: { limit?: number; textScanLimit?: number } = {}) {
  const events: AuditEventRow[] = [];
  const pages: Array<{ count: number; textScan: { scanned: number; limit: number } | null }> = [];
  let cursor: bigint | null = null;
  for (;;) {
    const page = await searchAuditEvents(t.db, { tenantId: a.id, filters, cursor, ...options });
    events.push(...page.events);
    pages.push({ count: page.events.length, textScan: page.textScan });
    if (!page.nextCursor) return { events, pages };
    cursor = BigInt(page.nextCursor);
  }
}

/** Tenant a's test events matching `test`, newest first. */
const expected = (test: (input: AuditEventInput, index: number) => boolean) =>
  written.filter((w, index) => test(w.input, index)).map((w) => w.id).reverse();

const testIds = (events: AuditEventRow[]) => events.map((e) => e.id).filter((id) => id >= written[0].id);

describe("the audit explorer's search", () => {
  it("pages through the tenant's events newest first by keyset, each exactly once, none of another tenant", async () => {
    const { events, pages } = await allPages({}, { limit: 7 });
    expect(testIds(events)).toEqual(expected(() => true));
    expect(pages.slice(0, -1).every((p) => p.count === 7 && p.textScan === null)).toBe(true);
  });

  it("filters on each column, the tenant always first", async () => {
    const cases: Array<[AuditFilters, (input: AuditEventInput) => boolean]> = [
      [{ tool: "refund_invoice" }, (e) => e.tool === "refund_invoice"],
      [{ verdict: "reject" }, (e) => e.verdict === "reject"],
      [{ risk: "high" }, (e) => e.riskLevel === "high"],
      [{ reviewer: REVIEWER }, (e) => e.reviewerId === REVIEWER],
      [{ requester: "agent:billing" }, (e) => e.requester === "agent:billing"],
      [{ status: "approved" }, (e) => e.status === "approved"],
      [{ type: "task.completed" }, (e) => e.type === "task.completed"],
      [{ tool: "get_invoice", risk: "high" }, (e) => e.tool === "get_invoice" && e.riskLevel === "high"],
    ];
    for (const [filters, test] of cases) {
      const { events } = await allPages(filters, { limit: 3 });
      expect(testIds(events), JSON.stringify(filters)).toEqual(expected(test));
      expect(events.length, JSON.stringify(filters)).toBe(expected(test).length);
    }
  });

  it("limits to whole UTC days, `to` included, and finds nothing outside the log", async () => {
    expect(testIds((await allPages({ from: "2025-01-10", to: "2025-01-10" }, { limit: 4 })).events)).toEqual(expected((_, i) => i < 10));
    expect(testIds((await allPages({ from: "2025-01-11" }, { limit: 4 })).events)).toEqual(expected((_, i) => i >= 10));
    expect(testIds((await allPages({ to: "2025-01-11", tool: "get_invoice" }, { limit: 4 })).events)).toEqual(
      expected((e, i) => i < 20 && e.tool === "get_invoice"),
    );
    expect(await searchAuditEvents(t.db, { tenantId: a.id, filters: { from: "2099-01-01" } })).toEqual({ events: [], nextCursor: null, textScan: null });
    expect(await searchAuditEvents(t.db, { tenantId: a.id, filters: { to: "2000-01-01", q: "x" } })).toEqual({
      events: [], nextCursor: null, textScan: { scanned: 0, limit: 0 },
    });
  });

  it("matches free text in type, actor, requester and tool, case-insensitively, with % and _ taken literally", async () => {
    expect(testIds((await allPages({ q: "BILLING" })).events)).toEqual(expected((e) => e.requester === "agent:billing"));
    expect(testIds((await allPages({ q: "refund" })).events)).toEqual(expected((e) => e.tool === "refund_invoice"));
    expect(testIds((await allPages({ q: "SK.COMP" })).events)).toEqual(expected((e) => e.type === "task.completed"));
    expect(testIds((await allPages({ q: "100%_s" })).events)).toEqual(expected((e) => e.actor.label === "Ann 100%_sure"));
    expect(testIds((await allPages({ q: "1000_s" })).events)).toEqual([]);
  });

  it("bounds a free-text scan and continues from where it stopped", async () => {
    const { events, pages } = await allPages({ q: "billing", from: "2025-01-10" }, { textScanLimit: 4 });
    expect(testIds(events)).toEqual(expected((e) => e.requester === "agent:billing"));
    // 30 events in range, four looked at per page: eight pages, the last one short.
    expect(pages.map((p) => p.textScan?.scanned)).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
    expect(pages.every((p) => p.textScan?.limit === 4)).toBe(true);
  });

  it("returns each event's columns and its seal once it has one", async () => {
    // Written inside a transaction, so nobody has asked for its seal yet.
    const unsealed = await t.db.$transaction((tx) => appendAuditEvent(tx, { ...eventInput(31, a.id), type: "task.failed", data: { error: "unsealed" } }));
    const [newest] = (await searchAuditEvents(t.db, { tenantId: a.id, filters: { type: "task.failed" } })).events;
    expect(newest).toMatchObject({ id: unsealed.id, seq: null, leafHash: null });
    await sealAuditChain(t.db, a.id);
    const [event] = (await searchAuditEvents(t.db, { tenantId: a.id, filters: { reviewer: REVIEWER }, limit: 1 })).events;
    const seal = await t.db.auditSeal.findUniqueOrThrow({ where: { eventId: event.id } });
    expect(event).toEqual({
      id: written[25].id, seq: seal.seq, at: expect.any(Date), actorType: "user", actorId: null, actorLabel: "actor-1",
      type: "task.completed", outcome: "ok", subjectType: "action", subjectId: "25", actionId: null, tool: "get_invoice",
      verdict: "reject", riskLevel: "low", reviewerId: REVIEWER, requester: "agent:support", status: "pending", data: { error: null },
      uid: expect.any(String), mac: expect.any(String), macOmits: [], leafHash: seal.leafHash,
    });
  });
});

describe("the audit charts", () => {
  it("counts decisions and expiries per UTC day, times to decision and outcomes by risk, within the window", async () => {
    const c = await createTestTenant(t.db);
    const propose = async (code: string) => {
      const proposed = await proposeAction(t.db, { tenantId: c.id, requester: c.requester, tool: "run_python", args: { code, language: "python" } });
      if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
      return proposed;
    };
    const decide = async (p: Awaited<ReturnType<typeof propose>>, verdict: "approve" | "reject") =>
      decideAction(t.db, { tenantId: c.id, actionId: p.actionId, reviewer: c.users.reviewer.member, verdict, payloadHash: p.payloadHash, note: "checked" });
    await decide(await propose("print(1)"), "approve");
    await decide(await propose("print(2)"), "reject");
    await propose("print(3)");
    const lapsing = await propose("print(4)");
    await t.db.action.update({ where: { id: lapsing.actionId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expireDueActions(t.db);
    const risk = (await t.db.action.findUniqueOrThrow({ where: { id: lapsing.actionId } })).riskLevel;

    const charts = await getAuditCharts(t.db, { tenantId: c.id });
    const today = new Date().toISOString().slice(0, 10);
    expect(charts.decisionsPerDay).toHaveLength(30);
    expect(charts.decisionsPerDay.at(-1)).toEqual({ day: today, approve: 1, reject: 1, expired: 1 });
    expect(charts.decisionsPerDay.slice(0, -1).every((d) => d.approve + d.reject + d.expired === 0)).toBe(true);
    expect(charts.to.toISOString()).toBe(`${new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(charts.timeToDecision.decided).toBe(2);
    expect(charts.timeToDecision.buckets[0]).toEqual({ label: "< 1 min", count: 2 });
    expect(charts.timeToDecision.medianSeconds).toBeGreaterThanOrEqual(0);
    const byRisk = charts.outcomesByRisk.find((r) => r.risk === risk)!;
    expect(byRisk.outcomes).toEqual({ executed: 0, approved: 1, rejected: 1, expired: 1, denied: 0, pending: 1, other: 0 });
    expect(charts.outcomesByRisk.filter((r) => r.risk !== risk).every((r) => Object.values(r.outcomes).every((n) => n === 0))).toBe(true);

    const past = await getAuditCharts(t.db, { tenantId: c.id, from: "2025-01-01", to: "2025-01-03" });
    expect(past.decisionsPerDay.map((d) => d.day)).toEqual(["2025-01-01", "2025-01-02", "2025-01-03"]);
    expect(past.timeToDecision.decided).toBe(0);
    expect(past.outcomesByRisk.every((r) => Object.values(r.outcomes).every((n) => n === 0))).toBe(true);
    expect(past.clipped).toBe(false);

    // A range anyone with audit:read can type: 10,000 years would be 3.65 million bars built on the request thread.
    const all = await getAuditCharts(t.db, { tenantId: c.id, from: "0000-01-01", to: "9999-12-31" });
    expect(all.clipped).toBe(true);
    expect(all.decisionsPerDay).toHaveLength(MAX_CHART_DAYS);
    expect(all.decisionsPerDay.at(-1)?.day).toBe("9999-12-31");
  });
});
