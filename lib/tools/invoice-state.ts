import type { JsonObject } from "@/lib/canonical/json-value";
import type { ReadContext } from "@/lib/tools/tool";
import { notFound } from "@/lib/errors";

/** Loads an invoice of the tenant by number, or throws not_found. */
export async function findInvoice(ctx: ReadContext, number: string) {
  const invoice = await ctx.db.invoice.findFirst({
    where: { tenantId: ctx.tenantId, number },
    include: { customer: true },
  });
  if (!invoice) throw notFound(`Invoice ${number}`);
  return invoice;
}

/** The invoice facts a decision rests on (the TOCTOU snapshot). */
export function invoiceSnapshot(invoice: Awaited<ReturnType<typeof findInvoice>>): JsonObject {
  return {
    invoice_number: invoice.number,
    status: invoice.status,
    currency: invoice.currency,
    amount_due_minor: invoice.amountDueMinor,
    amount_paid_minor: invoice.amountPaidMinor,
    amount_refunded_minor: invoice.amountRefundedMinor,
    version: invoice.version,
    customer_ref: invoice.customer.externalRef,
    customer_email: invoice.customer.email,
    customer_verified_domains: invoice.customer.verifiedDomains,
    customer_opt_out: invoice.customer.optOut,
  };
}
