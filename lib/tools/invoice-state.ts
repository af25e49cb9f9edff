import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { notFound } from "@/lib/errors";
import { readInvoice, type InvoiceRow } from "@/lib/db/statements/business/read-invoice";
import { readInvoices } from "@/lib/db/statements/business/read-invoices";

type ReadContext = { q: Queryable; tenantId: string; lock?: boolean };

/** Loads an invoice of the tenant by number with its customer, or throws not_found. */
export async function findInvoice(ctx: ReadContext, number: string): Promise<InvoiceRow> {
  const invoice = await readInvoice(ctx.q, { tenantId: ctx.tenantId, number, lock: ctx.lock });
  if (!invoice) throw notFound(`Invoice ${number}`);
  return invoice;
}

/** Many invoices by number in one read: each the invoice, or the not_found `findInvoice` throws. */
export async function findInvoices(ctx: Omit<ReadContext, "lock">, numbers: string[]): Promise<Array<InvoiceRow | Error>> {
  const rows = await readInvoices(ctx.q, { tenantId: ctx.tenantId, numbers: [...new Set(numbers)] });
  const byNumber = new Map(rows.map((row) => [row.number, row]));
  return numbers.map((number) => byNumber.get(number) ?? notFound(`Invoice ${number}`));
}

/** An invoice as `get_invoice` answers it (a read's result, not a snapshot). */
export function invoiceFacts(invoice: InvoiceRow): JsonObject {
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
