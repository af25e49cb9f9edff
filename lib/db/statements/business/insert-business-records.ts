import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonValue } from "@/lib/canonical/json-value";
import { jsonParam, query, type Queryable } from "@/lib/db/sql";

export type CustomerRecord = { externalRef: string; name: string; email: string; verifiedDomains: string[]; optOut?: boolean; notes?: string };
/** `customerRef`: the external ref of one of the tenant's customers; `dueDate` as YYYY-MM-DD. */
export type InvoiceRecord = {
  number: string; customerRef: string; amountDueMinor: number; amountPaidMinor: number; dueDate: string; status?: "open" | "paid" | "cancelled"; currency?: string;
};

/** A tenant's customers, in one statement. */
export async function insertCustomers(q: Queryable, input: { tenantId: string; customers: CustomerRecord[] }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "Customer" (id, "tenantId", "externalRef", name, email, "verifiedDomains", "optOut", notes)
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, c."externalRef", c.name, c.email,
      ARRAY(SELECT jsonb_array_elements_text(c."verifiedDomains")), COALESCE(c."optOut", false), COALESCE(c.notes, '')
    FROM jsonb_to_recordset(${jsonParam(input.customers)}::jsonb)
      AS c("externalRef" text, name text, email text, "verifiedDomains" jsonb, "optOut" boolean, notes text)`);
}

/** A tenant's invoices, each of the customer its ref names, in one statement. */
export async function insertInvoices(q: Queryable, input: { tenantId: string; invoices: InvoiceRecord[] }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "Invoice" (id, "tenantId", number, "customerId", status, currency, "amountDueMinor", "amountPaidMinor", "dueDate")
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, i.number, c.id, COALESCE(i.status, 'open')::"InvoiceStatus", COALESCE(i.currency, 'USD'),
      i."amountDueMinor", i."amountPaidMinor", i."dueDate"::date
    FROM jsonb_to_recordset(${jsonParam(input.invoices)}::jsonb)
      AS i(number text, "customerRef" text, status text, currency text, "amountDueMinor" int, "amountPaidMinor" int, "dueDate" text)
    JOIN "Customer" c ON c."tenantId" = ${input.tenantId}::uuid AND c."externalRef" = i."customerRef"`);
}

/** One of a tenant's data sets. */
export async function insertDataset(q: Queryable, input: { tenantId: string; name: string; content: JsonValue }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "Dataset" (id, "tenantId", name, content) VALUES (gen_random_uuid(), ${input.tenantId}::uuid, ${input.name}, ${jsonParam(input.content)}::jsonb)`);
}
