import { z } from "zod";
import { applyInvoiceCancellation } from "@/lib/db/statements/business/apply-invoice-cancellation";
import { defineTool, type Applied, type StateFinding } from "@/lib/tools/tool";
import { InvoiceNumberSchema, VerifiedInvoiceSchema, invoiceSnapshotReads } from "@/lib/tools/invoice-state";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  reason: z.string().trim().min(3).max(500),
});

/** Only an open invoice can be cancelled (a cancelled one twice, a paid one never). */
function cancelFindings(args: z.infer<typeof Args>, invoice: { status: string }): StateFinding[] {
  if (invoice.status === "open") return [];
  return [{
    id: "state.invoice-not-open",
    reason:
      invoice.status === "cancelled"
        ? `${args.invoice_number} is already cancelled; there is nothing left to cancel.`
        : `${args.invoice_number} is ${invoice.status}, not open; only open invoices can be cancelled.`,
    fields: ["invoice_number"],
  }];
}

export const cancelInvoice = defineTool({
  name: "cancel_invoice",
  kind: "tool",
  description: "Cancel an open invoice (irreversible: the customer no longer owes it). Give a reason.",
  classes: ["write", "irreversible", "financial"],
  args: Args,
  ...invoiceSnapshotReads,
  preview: (args, snapshot) => ({
    summary: `Cancel ${args.invoice_number} (${formatMinor(Number(snapshot?.amount_due_minor ?? 0), String(snapshot?.currency ?? "USD"))} due)`,
    before: snapshot ? { status: snapshot.status, amount_due_minor: snapshot.amount_due_minor } : null,
    after: { status: "cancelled", amount_due_minor: 0 },
  }),
  stateChecks: (args, snapshot) => cancelFindings(args, VerifiedInvoiceSchema.parse(snapshot)),
  policyContext: (_args, snapshot) => ({ amountMinor: Number(snapshot?.amount_due_minor ?? 0) }),
  async apply(ctx, args): Promise<Applied> {
    const invoice = VerifiedInvoiceSchema.parse(ctx.verified);
    const [finding] = cancelFindings(args, invoice);
    if (finding) return { ok: false, result: { error: `${finding.reason} Nothing was cancelled.` } };
    const cancelled = await applyInvoiceCancellation(ctx.q, {
      tenantId: ctx.tenantId, invoiceNumber: args.invoice_number, idempotencyKey: ctx.idempotencyKey, verifiedVersion: invoice.version,
    });
    if (!cancelled) return { stateChanged: `Invoice ${args.invoice_number} is no longer in the state the reviewers approved.` };
    return { ok: true, result: { invoice_number: args.invoice_number, status: "cancelled", reason: args.reason } };
  },
});
