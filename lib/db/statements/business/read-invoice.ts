import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { CustomerRow } from "@/lib/db/statements/business/read-customer";

export type InvoiceRow = {
  id: string;
  number: string;
  status: "open" | "paid" | "cancelled" | "refunded";
  currency: string;
  amountDueMinor: number;
  amountPaidMinor: number;
  amountRefundedMinor: number;
  dueDate: Date;
  version: number;
  customer: Omit<CustomerRow, "invoices">;
};

/**
 * One invoice of the tenant by number, with its customer. `lock`: inside the claim's transaction,
 * the invoice is locked for update and its customer for share until the effect commits, so the
 * state the gate checked is the state the effect acts on.
 */
export async function readInvoice(q: Queryable, input: { tenantId: string; number: string; lock?: boolean }): Promise<InvoiceRow | null> {
  const [row] = await query<InvoiceRow>(q, Prisma.sql`
    SELECT i.id, i.number, i.status::text AS status, i.currency, i."amountDueMinor", i."amountPaidMinor",
      i."amountRefundedMinor", i."dueDate", i.version,
      json_build_object('id', c.id, 'externalRef', c."externalRef", 'name', c.name, 'email', c.email,
        'verifiedDomains', c."verifiedDomains", 'optOut', c."optOut", 'notes', c.notes, 'version', c.version) AS customer
    FROM "Invoice" i JOIN "Customer" c ON c.id = i."customerId" AND c."tenantId" = i."tenantId"
    WHERE i."tenantId" = ${input.tenantId}::uuid AND i.number = ${input.number}
    ${input.lock ? Prisma.sql`FOR UPDATE OF i FOR SHARE OF c` : Prisma.empty}`);
  return row ?? null;
}
