import { z } from "zod";
import { applyInvoiceCancellation } from "@/lib/db/statements/business/apply-invoice-cancellation";
import { defineTool, type Applied, type StateFinding } from "@/lib/tools/tool";
import { InvoiceNumberSchema, declaredStateReads, type StateReference } from "@/lib/tools/state-references";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  reason: z.string().trim().min(3).max(500),
});

/** What a cancellation rests on: the invoice open, and the amount it writes off. */
const REST_ON = [
  { key: "invoice", entity: "invoice", arg: "invoice_number", fields: ["status", "currency", "amount_due_minor"] },
] as const satisfies readonly StateReference[];

const VerifiedSchema = z.object({ invoice: z.object({ status: z.string(), currency: z.string(), amount_due_minor: z.number().int() }) });

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
  restsOn: REST_ON,
  ...declaredStateReads(REST_ON),
  preview: (args, snapshot) => {
    const invoice = VerifiedSchema.safeParse(snapshot).data?.invoice;
    return {
      summary: `Cancel ${args.invoice_number} (${formatMinor(invoice?.amount_due_minor ?? 0, invoice?.currency ?? "USD")} due)`,
      before: invoice ? { status: invoice.status, amount_due_minor: invoice.amount_due_minor } : null,
      after: { status: "cancelled", amount_due_minor: 0 },
    };
  },
  stateChecks: (args, snapshot) => cancelFindings(args, VerifiedSchema.parse(snapshot).invoice),
  // A snapshot recorded before restsOn kept the amount flat; a dry run over history still reads it.
  policyContext: (_args, snapshot) => ({ amountMinor: VerifiedSchema.safeParse(snapshot).data?.invoice.amount_due_minor ?? Number(snapshot?.amount_due_minor ?? 0) }),
  async apply(ctx, args): Promise<Applied> {
    const { invoice } = VerifiedSchema.parse(ctx.verified);
    const [finding] = cancelFindings(args, invoice);
    if (finding) return { ok: false, result: { error: `${finding.reason} Nothing was cancelled.` } };
    const cancelled = await applyInvoiceCancellation(ctx.q, {
      tenantId: ctx.tenantId, invoiceNumber: args.invoice_number, idempotencyKey: ctx.idempotencyKey, verifiedAmountDueMinor: invoice.amount_due_minor,
    });
    if (!cancelled) return { stateChanged: `Invoice ${args.invoice_number} is no longer in the state the reviewers approved.` };
    return { ok: true, result: { invoice_number: args.invoice_number, status: "cancelled", reason: args.reason } };
  },
});
