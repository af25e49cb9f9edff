import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { InvoiceRow } from "@/lib/db/statements/business/read-invoice";

/**
 * The tenant's invoices with these numbers (those that exist), each with its customer, in one
 * read: the review queue's state reads for a page of invoice actions. Never locks (the gate's
 * re-read before execution is read-invoice.ts).
 */
export async function readInvoices(q: Queryable, input: { tenantId: string; numbers: string[] }): Promise<InvoiceRow[]> {
  if (input.numbers.length === 0) return [];
  return query<InvoiceRow>(q, Prisma.sql`
    SELECT i.id, i.number, i.status::text AS status, i.currency, i."amountDueMinor", i."amountPaidMinor",
      i."amountRefundedMinor", i."dueDate", i.version,
      json_build_object('id', c.id, 'externalRef', c."externalRef", 'name', c.name, 'email', c.email,
        'verifiedDomains', c."verifiedDomains", 'optOut', c."optOut", 'notes', c.notes, 'version', c.version) AS customer
    FROM "Invoice" i JOIN "Customer" c ON c.id = i."customerId" AND c."tenantId" = i."tenantId"
    WHERE i."tenantId" = ${input.tenantId}::uuid AND i.number = ANY(${input.numbers}::text[])`);
}
