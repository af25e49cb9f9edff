import { beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { auditExportContext, MAX_CONTEXT_CHARS } from "@/lib/audit/audit-export-context";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { csvHeader, csvLine, readableJsonLine } from "@/lib/audit/audit-export-format";
import { getAuditCharts } from "@/lib/audit/audit-charts";
import { searchAuditEvents } from "@/lib/audit/search-audit-events";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/audit/seal-audit-chain";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
const b = setUpTestTenant(t);
let refundId: string;

beforeAll(async () => {
  const refund = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "parcel lost in transit" }, reason: "Customer asked twice" });
  if (refund.state !== "pending") throw new Error("expected a pending refund");
  refundId = refund.actionId;
  await decideAction(t.db, { tenantId: a.id, actionId: refund.actionId, reviewer: a.users.reviewer.member, verdict: "reject", payloadHash: refund.payloadHash, note: "needs a photo of the damage" });
  await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "get_invoice", args: { invoice_number: "INV-1044" } });
  await proposeAction(t.db, { tenantId: b.id, requester: b.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 45_000, reason: "parcel lost in transit" } });
});

describe("audit that reads", () => {
  it("exports carry the action summary, canonical arguments, reviewer email, note and reasons as columns; the sealed events are unchanged", async () => {
    const { events } = await searchAuditEvents(t.db, { tenantId: a.id, filters: { tool: "refund_invoice" } });
    const context = await auditExportContext(t.db, a.id, events);
    const proposed = events.find((e) => e.type === "action.proposed");
    const decided = events.find((e) => e.type === "decision.recorded");
    if (!proposed || !decided) throw new Error("events missing");
    expect(context.get(String(proposed.id))).toEqual({
      summary: "Refund 450.00 USD on INV-1044",
      arguments: '{"amount_minor":45000,"invoice_number":"INV-1044","reason":"parcel lost in transit"}',
      reviewerEmail: null, note: null, reason: expect.stringContaining("refund-small"), agentReason: "Customer asked twice",
    });
    expect(context.get(String(decided.id))).toMatchObject({ reviewerEmail: a.users.reviewer.email, note: "needs a photo of the damage", summary: "Refund 450.00 USD on INV-1044" });

    expect(csvHeader().trim().split(",").slice(-6)).toEqual(["summary", "arguments", "reviewerEmail", "note", "reason", "agentReason"]);
    const line = csvLine(decided, context.get(String(decided.id)));
    expect(line).toContain(a.users.reviewer.email);
    expect(line).toContain('"{""amount_minor"":45000,""invoice_number"":""INV-1044"",""reason"":""parcel lost in transit""}"');
    expect(JSON.parse(readableJsonLine(decided, context.get(String(decided.id))))).toMatchObject({ type: "decision.recorded", reviewerEmail: a.users.reviewer.email, note: "needs a photo of the damage", reviewerId: a.users.reviewer.id });

    await sealAuditChain(t.db, a.id);
    expect((await verifyAuditChain(t.db, a.id, { kind: "full" })).ok).toBe(true);
  });

  it("cuts a context column at MAX_CONTEXT_CHARS (a spreadsheet cell's size), saying how much was left out", async () => {
    const c = await createTestTenant(t.db);
    const code = `${"x = 1\n".repeat(15_000)}print(x)\n`;
    const proposed = await proposeAction(t.db, { tenantId: c.id, requester: c.requester, tool: "run_python", args: { code, language: "python" } });
    const { events } = await searchAuditEvents(t.db, { tenantId: c.id, filters: { tool: "run_python" } });
    const ofAction = events.filter((e) => e.actionId === proposed.actionId);
    expect(ofAction.length).toBeGreaterThan(0);
    const context = await auditExportContext(t.db, c.id, ofAction);
    const written = context.get(String(ofAction[0].id))?.arguments ?? "";
    const whole = JSON.stringify({ code, language: "python" }).length;
    expect(written.slice(0, MAX_CONTEXT_CHARS)).toBe(canonicalJson({ code, language: "python" }).slice(0, MAX_CONTEXT_CHARS));
    expect(written.slice(MAX_CONTEXT_CHARS)).toBe(`… [cut: ${whole - MAX_CONTEXT_CHARS} more characters; the action's page in Countersign shows them whole]`);
  });

  it("text search looks inside arguments and notes, within the tenant", async () => {
    const byArgs = await searchAuditEvents(t.db, { tenantId: a.id, filters: { q: "parcel lost" } });
    expect(byArgs.events.length).toBeGreaterThan(0);
    expect(new Set(byArgs.events.map((e) => e.actionId))).toEqual(new Set([refundId]));
    const byNote = await searchAuditEvents(t.db, { tenantId: a.id, filters: { q: "photo of the damage" } });
    expect(byNote.events.map((e) => e.type)).toEqual(["decision.recorded"]);
    expect((await searchAuditEvents(t.db, { tenantId: a.id, filters: { q: "no such words anywhere" } })).events).toEqual([]);
  });

  it("charts follow the search text as the events list does: arguments, notes, tool", async () => {
    const total = (c: Awaited<ReturnType<typeof getAuditCharts>>) => c.outcomesByRisk.reduce((n, r) => n + Object.values(r.outcomes).reduce((x, y) => x + y, 0), 0);
    const rejects = (c: Awaited<ReturnType<typeof getAuditCharts>>) => c.decisionsPerDay.reduce((n, d) => n + d.reject, 0);
    const byArgs = await getAuditCharts(t.db, { tenantId: a.id, filter: { text: "PARCEL lost" } });
    expect([total(byArgs), rejects(byArgs)]).toEqual([1, 1]);
    expect(total(await getAuditCharts(t.db, { tenantId: a.id, filter: { text: "photo of the damage" } }))).toBe(1);
    expect(total(await getAuditCharts(t.db, { tenantId: a.id, filter: { text: "get_invoice" } }))).toBe(1);
    // Its own % and _ match themselves, not anything.
    const none = await getAuditCharts(t.db, { tenantId: a.id, filter: { text: "no such words anywhere%" } });
    expect([total(none), rejects(none)]).toEqual([0, 0]);
    expect(total(await getAuditCharts(t.db, { tenantId: a.id, filter: { text: "%" } }))).toBe(0);
  });

  it("charts follow the filters: tool, risk, reviewer and decision", async () => {
    const total = (c: Awaited<ReturnType<typeof getAuditCharts>>) => c.outcomesByRisk.reduce((n, r) => n + Object.values(r.outcomes).reduce((x, y) => x + y, 0), 0);
    const rejects = (c: Awaited<ReturnType<typeof getAuditCharts>>) => c.decisionsPerDay.reduce((n, d) => n + d.reject, 0);
    const all = await getAuditCharts(t.db, { tenantId: a.id });
    expect(total(all)).toBe(2);
    expect(rejects(all)).toBe(1);
    const refunds = await getAuditCharts(t.db, { tenantId: a.id, filter: { tool: "refund_invoice" } });
    expect(total(refunds)).toBe(1);
    const reads = await getAuditCharts(t.db, { tenantId: a.id, filter: { tool: "get_invoice" } });
    expect([total(reads), rejects(reads), reads.timeToDecision.decided]).toEqual([1, 0, 0]);
    expect(total(await getAuditCharts(t.db, { tenantId: a.id, filter: { reviewerId: a.users.reviewer.id, verdict: "reject" } }))).toBe(1);
    expect(rejects(await getAuditCharts(t.db, { tenantId: a.id, filter: { reviewerId: a.users.reviewer2.id } }))).toBe(0);
  });
});
