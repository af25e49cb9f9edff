import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import { notFound } from "@/lib/errors";
import { readInvoice, type InvoiceRow } from "@/lib/db/statements/business/read-invoice";
import { readInvoices } from "@/lib/db/statements/business/read-invoices";
import type { ReadContext } from "@/lib/tools/tool";

/** An invoice number as tools accept it (INV-1042). */
export const InvoiceNumberSchema = z.string().trim().regex(/^INV-\d{1,10}$/, "looks like INV-1042");

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

/** The invoice facts a decision rests on (the TOCTOU snapshot). */
export function invoiceSnapshot(invoice: InvoiceRow): JsonObject {
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

/** The snapshot reads of a tool whose arguments name one invoice. */
export const invoiceSnapshotReads = {
  snapshot: async (ctx: ReadContext, args: { invoice_number: string }) => invoiceSnapshot(await findInvoice(ctx, args.invoice_number)),
  snapshots: async (ctx: Omit<ReadContext, "lock">, all: Array<{ invoice_number: string }>) =>
    (await findInvoices(ctx, all.map((a) => a.invoice_number))).map((row) => (row instanceof Error ? row : invoiceSnapshot(row))),
};

/** The approved invoice state an effect is conditioned on, read back from a verified snapshot. */
export const VerifiedInvoiceSchema = z.object({
  status: z.string(),
  currency: z.string(),
  version: z.number().int(),
  amount_due_minor: z.number().int(),
  amount_paid_minor: z.number().int(),
  amount_refunded_minor: z.number().int(),
});
