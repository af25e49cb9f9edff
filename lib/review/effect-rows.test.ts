import { describe, expect, it } from "vitest";
import { refundInvoice } from "@/lib/tools/refund-invoice";
import { effectRows, type EffectNow } from "@/lib/review/effect-rows";

// The refund's snapshot: the invoice fields it rests on (lib/tools/state-references.ts).
const invoice = (refunded: number) => ({ invoice: { status: "paid", currency: "USD", amount_paid_minor: 90_000, amount_refunded_minor: refunded } });
const refund = (amount: number) => ({ invoice_number: "INV-1043", amount_minor: amount, reason: "Returned goods" });
/** What the page computes from the state now (lib/review/read-states-now.ts): the tool's preview over it. */
const liveOf = (state: ReturnType<typeof invoice>, args: ReturnType<typeof refund>): EffectNow => {
  const { before, after } = refundInvoice.preview(args, state);
  return { read: true, before, after };
};
const refundedRow = (rows: ReturnType<typeof effectRows>) => rows.find((r) => r.field === "amount_refunded_minor")!;

describe("the effect table's After", () => {
  it("is Now plus the refund: 450.00 with 2.00 refunded now is 452.00, with the 450.00 of the request beside it", () => {
    const args = refund(45_000);
    const rows = effectRows(refundInvoice.preview(args, invoice(0)), liveOf(invoice(200), args));
    expect(refundedRow(rows)).toMatchObject({ atRequest: 0, now: { read: true, value: 200 }, after: 45_200, afterFrom: "now", afterAtRequest: 45_000, moved: true, changes: true });
  });

  it("10.00 with 113.00 refunded now is 123.00", () => {
    const args = refund(1_000);
    const rows = effectRows(refundInvoice.preview(args, invoice(10_900)), liveOf(invoice(11_300), args));
    expect(refundedRow(rows).after).toBe(12_300);
  });

  it("says nothing of the request's After when the state did not move", () => {
    const args = refund(45_000);
    const rows = effectRows(refundInvoice.preview(args, invoice(0)), liveOf(invoice(0), args));
    expect(refundedRow(rows)).toMatchObject({ after: 45_000, moved: false });
    expect(refundedRow(rows).afterAtRequest).toBeUndefined();
  });

  it("falls back to the request's After only when the state was not read, and says where it came from", () => {
    const args = refund(45_000);
    const rows = effectRows(refundInvoice.preview(args, invoice(0)), { read: false, why: "not read again" });
    expect(refundedRow(rows)).toMatchObject({ after: 45_000, afterFrom: "request", now: { read: false } });
  });

  it("lists a field that only the effect computed now has, and marks a status the refund now completes", () => {
    const args = refund(45_000);
    // 450.00 more on 500.00 refunded of 900.00 paid no longer fits, but the status rule still shows: 950.00 ≥ 900.00 → refunded.
    const rows = effectRows(refundInvoice.preview(args, invoice(0)), liveOf(invoice(50_000), args));
    expect(rows.find((r) => r.field === "status")).toMatchObject({ atRequest: "paid", after: "refunded", afterAtRequest: "paid", changes: true });
  });
});
