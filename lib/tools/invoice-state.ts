import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Customer, Invoice } from "@/lib/generated/prisma/client";
import type { ReadContext } from "@/lib/tools/tool";
import { notFound } from "@/lib/errors";
import { sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";

/** An invoice number as tools accept it (INV-1042). */
export const InvoiceNumberSchema = z.string().trim().regex(/^INV-\d{1,10}$/, "looks like INV-1042");

type InvoiceRow = Invoice & {
  customer: Pick<Customer, "id" | "tenantId" | "externalRef" | "name" | "email" | "verifiedDomains" | "optOut" | "notes" | "version">;
};

/**
 * Loads an invoice of the tenant by number with its customer, or throws not_found. One query:
 * this is the snapshot read of every invoice tool, on the hot path of proposals and executions.
 */
export async function findInvoice(ctx: ReadContext, number: string): Promise<InvoiceRow> {
  const rows = await sqlQuery<InvoiceRow>(ctx.db, Prisma.sql`
    SELECT i.id, i."tenantId", i.number, i."customerId", i.status::text AS status, i.currency, i."amountDueMinor",
      i."amountPaidMinor", i."amountRefundedMinor", i."dueDate", i.version, i."cancelKey", i."createdAt", i."updatedAt",
      json_build_object('id', c.id, 'tenantId', c."tenantId", 'externalRef', c."externalRef", 'name', c.name,
        'email', c.email, 'verifiedDomains', c."verifiedDomains", 'optOut', c."optOut", 'notes', c.notes,
        'version', c.version) AS customer
    FROM "Invoice" i JOIN "Customer" c ON c.id = i."customerId" AND c."tenantId" = i."tenantId"
    WHERE i."tenantId" = ${ctx.tenantId}::uuid AND i.number = ${number}`);
  const invoice = rows[0];
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
