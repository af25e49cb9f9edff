import { z } from "zod";
import { defineTool, type ToolOutcome } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice, invoiceSnapshot } from "@/lib/tools/invoice-state";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  amount_minor: z.number().int().positive().max(1_000_000_000),
  reason: z.string().trim().min(3).max(500),
});

export const refundInvoice = defineTool({
  name: "refund_invoice",
  kind: "tool",
  description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
  classes: ["write", "financial", "irreversible"],
  args: Args,
  snapshot: async (ctx, args) => invoiceSnapshot(await findInvoice(ctx, args.invoice_number)),
  preview: (args, snapshot) => {
    const refunded = Number(snapshot?.amount_refunded_minor ?? 0);
    const paid = Number(snapshot?.amount_paid_minor ?? 0);
    const after = refunded + args.amount_minor;
    return {
      summary: `Refund ${formatMinor(args.amount_minor, String(snapshot?.currency ?? "USD"))} on ${args.invoice_number}`,
      before: { status: snapshot?.status ?? null, amount_refunded_minor: refunded },
      after: { status: after >= paid ? "refunded" : (snapshot?.status ?? null), amount_refunded_minor: after },
    };
  },
  policyContext: (args) => ({ amountMinor: args.amount_minor }),
  honoursIdempotencyKey: () => true,
  async execute(ctx, args, idempotencyKey): Promise<ToolOutcome> {
    // The refund row is unique on the key: a retry after a crash finds its own refund.
    const existing = await ctx.db.refund.findUnique({ where: { idempotencyKey } });
    if (existing) {
      return { ok: true, result: { refund_id: existing.id, amount_minor: existing.amountMinor, replayed: true } };
    }
    const invoice = await findInvoice(ctx, args.invoice_number);
    const refundable = invoice.amountPaidMinor - invoice.amountRefundedMinor;
    if (args.amount_minor > refundable) {
      return { ok: false, result: { error: `Only ${formatMinor(refundable, invoice.currency)} of ${invoice.number} can be refunded; nothing was refunded.` } };
    }
    // Invoice and refund row change together or not at all.
    const refund = await ctx.db.$transaction(async (tx) => {
      const { count } = await tx.invoice.updateMany({
        where: { id: invoice.id, tenantId: ctx.tenantId, version: invoice.version },
        data: {
          amountRefundedMinor: { increment: args.amount_minor },
          version: { increment: 1 },
          ...(args.amount_minor === refundable ? { status: "refunded" as const } : {}),
        },
      });
      if (count === 0) return null;
      return tx.refund.create({
        data: { tenantId: ctx.tenantId, invoiceId: invoice.id, amountMinor: args.amount_minor, reason: args.reason, idempotencyKey },
      });
    });
    if (!refund) return { ok: false, result: { error: `Invoice ${invoice.number} changed while refunding; nothing was refunded.` } };
    return { ok: true, result: { refund_id: refund.id, invoice_number: invoice.number, amount_minor: args.amount_minor } };
  },
});
