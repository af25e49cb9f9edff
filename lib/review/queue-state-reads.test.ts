import { afterEach, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import pg from "pg";
import type { JsonObject } from "@/lib/canonical/json-value";
import { diffFields, type FieldChange } from "@/lib/approvals/payload-diff";
import { proposeAction } from "@/lib/approvals/propose-action";
import { snapshotHash } from "@/lib/approvals/snapshot-hash";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { findTool } from "@/lib/tools/registry";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
afterEach(() => vi.restoreAllMocks());

const PROPOSALS: Array<{ tool: string; args: (i: number) => JsonObject }> = [
  { tool: "refund_invoice", args: (i) => ({ invoice_number: i % 2 ? "INV-1044" : "INV-1043", amount_minor: 1_000 + i, reason: `Goods returned ${i}` }) },
  { tool: "cancel_invoice", args: (i) => ({ invoice_number: ["INV-1042", "INV-1045", "INV-1046"][i % 3], reason: `Duplicate ${i}` }) },
  { tool: "send_email", args: (i) => ({ to: "billing@acme.example", subject: `Invoice ${i}`, body: "Hello", invoice_number: "INV-1042" }) },
  { tool: "send_email", args: (i) => ({ to: "ap@initech.example", subject: `Account ${i}`, body: "Hello", customer_ref: "CUST-002" }) },
];

async function proposeRound(round: number) {
  for (const p of PROPOSALS) {
    const outcome = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: p.tool, args: p.args(round) });
    if (outcome.state !== "pending") throw new Error(`${p.tool}: expected pending, got ${outcome.state}`);
  }
}

const reviewer = () => ({ tenantId: a.id, userId: a.users.reviewer.id, roles: a.users.reviewer.roles });

/**
 * The statements that read the state actions rest on (invoices, customers, data sets, upstream
 * tools) while `work` runs, as sent to PostgreSQL by any pg client (Prisma's adapter and the raw
 * statements share them). Other statements (the page's own reads, the audit sealer running in the
 * background after the proposals) are not counted.
 */
async function countStateReads<T>(work: () => Promise<T>): Promise<{ result: T; stateReads: number }> {
  const spy = vi.spyOn(pg.Client.prototype, "query");
  const result = await work();
  const texts = spy.mock.calls.map(([config]) => (typeof config === "string" ? config : (config as { text?: string }).text ?? ""));
  spy.mockRestore();
  return { result, stateReads: texts.filter((text) => /FROM "(?:Invoice|Customer|Dataset|McpTool)"/.test(text)).length };
}

/** What each row's state changes were when every row read its own state (the per-row way, before batching). */
async function perRowStateChanges(actionIds: string[]): Promise<Array<FieldChange[] | null>> {
  return Promise.all(
    actionIds.map(async (id) => {
      const action = await t.db.action.findUniqueOrThrow({ where: { id }, include: { revisions: { where: { status: "current" }, include: { snapshots: { where: { phase: "request" } } } } } });
      const revision = action.revisions[0];
      const atRequest = revision.snapshots[0];
      const now = await findTool(action.tool)!.snapshot({ q: t.db, tenantId: a.id }, revision.args as JsonObject);
      if (snapshotHash(now) === atRequest.hash) return null;
      return diffFields(atRequest.data as JsonObject, now);
    }),
  );
}

describe("the review queue's state reads", () => {
  it("cost the same four state reads for a page of 4 rows as for a page of 40, with the same answers as reading each row alone", async () => {
    await proposeRound(0);
    const small = await countStateReads(() => listReviewQueue(t.db, reviewer()));
    expect(small.result.items).toHaveLength(4);

    for (let round = 1; round < 10; round++) await proposeRound(round);
    // The state moves behind the queue's back for some rows: an invoice refunded elsewhere, another's amount due, a customer's details changed.
    await t.db.invoice.updateMany({ where: { tenantId: a.id, number: "INV-1044" }, data: { amountRefundedMinor: { increment: 5_000 }, version: { increment: 1 } } });
    await t.db.invoice.updateMany({ where: { tenantId: a.id, number: "INV-1045" }, data: { amountDueMinor: { decrement: 100 }, version: { increment: 1 } } });
    await t.db.customer.updateMany({ where: { tenantId: a.id, externalRef: "CUST-002" }, data: { optOut: true, version: { increment: 1 } } });

    const large = await countStateReads(() => listReviewQueue(t.db, reviewer()));
    expect(large.result.items).toHaveLength(40);
    // One read per tool that reads state (refunds and cancellations: invoices; emails: invoices and customers), whatever the page's size.
    expect(small.stateReads).toBe(4);
    expect(large.stateReads).toBe(4);

    const expected = await perRowStateChanges(large.result.items.map((i) => i.id));
    expect(large.result.items.map((i) => i.stateChanges)).toEqual(expected);
    // The comparison above sees changes to the fields each rests on: the refunds of INV-1044, the
    // cancellations of INV-1045 and the emails to CUST-002; not the rest (a refund of INV-1043 does
    // not rest on its customer's opt-out).
    const changed = large.result.items.filter((i) => i.stateChanges !== null);
    expect(changed.filter((i) => i.tool === "refund_invoice")).toHaveLength(5);
    expect(changed.filter((i) => i.tool === "cancel_invoice")).toHaveLength(3);
    expect(changed.filter((i) => i.tool === "send_email")).toHaveLength(10);
    const refundedElsewhere = changed.filter((i) => i.stateChanges?.some((c) => c.path === "invoice.amount_refunded_minor"));
    expect(refundedElsewhere).toHaveLength(5);
    expect(refundedElsewhere[0].stateChanges?.find((c) => c.path === "invoice.amount_refunded_minor")).toMatchObject({ before: 0, after: 5_000 });
  });
});
