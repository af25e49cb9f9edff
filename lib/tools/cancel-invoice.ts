import { z } from "zod";
import { defineTool, type ToolOutcome } from "@/lib/tools/tool";
import { InvoiceNumberSchema, findInvoice, invoiceSnapshot } from "@/lib/tools/invoice-state";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  reason: z.string().trim().min(3).max(500),
});

export const cancelInvoice = defineTool({
  name: "cancel_invoice",
  kind: "tool",
  description: "Cancel an open invoice (irreversible: the customer no longer owes it). Give a reason.",
  classes: ["write", "irreversible", "financial"],
  args: Args,
  snapshot: async (ctx, args) => invoiceSnapshot(await findInvoice(ctx, args.invoice_number)),
  preview: (args, snapshot) => ({
    summary: `Cancel ${args.invoice_number} (${formatMinor(Number(snapshot?.amount_due_minor ?? 0), String(snapshot?.currency ?? "USD"))} due)`,
    before: snapshot ? { status: snapshot.status, amount_due_minor: snapshot.amount_due_minor } : null,
    after: { status: "cancelled", amount_due_minor: 0 },
  }),
  policyContext: (_args, snapshot) => ({ amountMinor: Number(snapshot?.amount_due_minor ?? 0) }),
  honoursIdempotencyKey: () => true,
  async execute(ctx, args, idempotencyKey): Promise<ToolOutcome> {
    const invoice = await findInvoice(ctx, args.invoice_number);
    if (invoice.cancelKey === idempotencyKey) {
      return { ok: true, result: { invoice_number: invoice.number, status: "cancelled", replayed: true } };
    }
    if (invoice.status !== "open") {
      return { ok: false, result: { error: `Invoice ${invoice.number} is ${invoice.status}, not open; nothing was cancelled.` } };
    }
    // Conditional on the version read: a concurrent change makes this a no-op, never a blind write.
    const { count } = await ctx.db.invoice.updateMany({
      where: { id: invoice.id, tenantId: ctx.tenantId, version: invoice.version, status: "open" },
      data: { status: "cancelled", amountDueMinor: 0, version: { increment: 1 }, cancelKey: idempotencyKey },
    });
    if (count === 0) return { ok: false, result: { error: `Invoice ${invoice.number} changed while cancelling; nothing was cancelled.` } };
    return { ok: true, result: { invoice_number: invoice.number, status: "cancelled", reason: args.reason } };
  },
});
