import { z } from "zod";
import { applyRefund } from "@/lib/db/statements/business/apply-refund";
import { defineTool, type Applied, type StateFinding } from "@/lib/tools/tool";
import { InvoiceNumberSchema, declaredStateReads, type StateReference } from "@/lib/tools/state-references";
import { formatMinor } from "@/lib/tools/money";

const Args = z.strictObject({
  invoice_number: InvoiceNumberSchema,
  amount_minor: z.number().int().positive().max(1_000_000_000),
  reason: z.string().trim().min(3).max(500),
});

/** What a refund rests on: what was paid and refunded, in which currency, and the status it may move. */
const REST_ON = [
  { key: "invoice", entity: "invoice", arg: "invoice_number", fields: ["status", "currency", "amount_paid_minor", "amount_refunded_minor"] },
] as const satisfies readonly StateReference[];

const VerifiedSchema = z.object({
  invoice: z.object({ status: z.string(), currency: z.string(), amount_paid_minor: z.number().int(), amount_refunded_minor: z.number().int() }),
});
type VerifiedInvoice = z.infer<typeof VerifiedSchema>["invoice"];

/** A refund may not exceed what was paid and not yet refunded. */
function refundFindings(args: z.infer<typeof Args>, invoice: VerifiedInvoice): StateFinding[] {
  const refundable = invoice.amount_paid_minor - invoice.amount_refunded_minor;
  if (args.amount_minor <= refundable) return [];
  const money = (minor: number) => formatMinor(minor, invoice.currency);
  return [{
    id: "state.refund-exceeds-refundable",
    reason:
      `A refund of ${money(args.amount_minor)} is more than the ${money(refundable)} refundable on ${args.invoice_number} ` +
      `(paid ${money(invoice.amount_paid_minor)}, already refunded ${money(invoice.amount_refunded_minor)}).`,
    fields: ["amount_minor", "invoice_number"],
  }];
}

export const refundInvoice = defineTool({
  name: "refund_invoice",
  kind: "tool",
  description: "Refund part or all of what a customer paid on an invoice. amount_minor is in cents (45000 = 450.00).",
  classes: ["write", "financial", "irreversible"],
  args: Args,
  restsOn: REST_ON,
  ...declaredStateReads(REST_ON),
  preview: (args, snapshot) => {
    const invoice = VerifiedSchema.safeParse(snapshot).data?.invoice;
    const refunded = invoice?.amount_refunded_minor ?? 0;
    const paid = invoice?.amount_paid_minor ?? 0;
    const after = refunded + args.amount_minor;
    return {
      summary: `Refund ${formatMinor(args.amount_minor, invoice?.currency ?? "USD")} on ${args.invoice_number}`,
      before: { status: invoice?.status ?? null, amount_refunded_minor: refunded },
      after: { status: after >= paid ? "refunded" : (invoice?.status ?? null), amount_refunded_minor: after },
    };
  },
  stateChecks: (args, snapshot) => refundFindings(args, VerifiedSchema.parse(snapshot).invoice),
  policyContext: (args) => ({ amountMinor: args.amount_minor }),
  async apply(ctx, args): Promise<Applied> {
    const { invoice } = VerifiedSchema.parse(ctx.verified);
    const [finding] = refundFindings(args, invoice);
    if (finding) return { ok: false, result: { error: `${finding.reason} Nothing was refunded.` } };
    const refund = await applyRefund(ctx.q, {
      tenantId: ctx.tenantId, actionId: ctx.actionId, idempotencyKey: ctx.idempotencyKey, invoiceNumber: args.invoice_number,
      amountMinor: args.amount_minor, reason: args.reason,
      verified: {
        status: invoice.status, currency: invoice.currency,
        amountPaidMinor: invoice.amount_paid_minor, amountRefundedMinor: invoice.amount_refunded_minor,
      },
    });
    if (!refund) return { stateChanged: `Invoice ${args.invoice_number} is no longer in the state the reviewers approved.` };
    return { ok: true, result: { refund_id: refund.refundId, invoice_number: args.invoice_number, amount_minor: args.amount_minor } };
  },
});
