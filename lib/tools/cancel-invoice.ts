import { z } from "zod";
import { applyInvoiceCancellation } from "@/lib/db/statements/apply-invoice-cancellation";
import { defineTool, type Applied } from "@/lib/tools/tool";
import { InvoiceNumberSchema, VerifiedInvoiceSchema, findInvoice, invoiceSnapshot } from "@/lib/tools/invoice-state";
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
  async apply(ctx, args): Promise<Applied> {
    const invoice = VerifiedInvoiceSchema.parse(ctx.verified);
    if (invoice.status !== "open") {
      return { ok: false, result: { error: `Invoice ${args.invoice_number} is ${invoice.status}, not open; nothing was cancelled.` } };
    }
    const cancelled = await applyInvoiceCancellation(ctx.q, {
      tenantId: ctx.tenantId, invoiceNumber: args.invoice_number, idempotencyKey: ctx.idempotencyKey, verifiedVersion: invoice.version,
    });
    if (!cancelled) return { stateChanged: `Invoice ${args.invoice_number} is no longer in the state the reviewers approved.` };
    return { ok: true, result: { invoice_number: args.invoice_number, status: "cancelled", reason: args.reason } };
  },
});
