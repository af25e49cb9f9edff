import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { CustomerRow } from "@/lib/db/statements/business/read-customer";

/**
 * The tenant's customers with these references (those that exist), without their invoices, in one
 * read: the review queue's state reads for a page of emails. Never locks.
 */
export async function readCustomers(q: Queryable, input: { tenantId: string; externalRefs: string[] }): Promise<Array<Omit<CustomerRow, "invoices">>> {
  if (input.externalRefs.length === 0) return [];
  return query<Omit<CustomerRow, "invoices">>(q, Prisma.sql`
    SELECT c.id, c."externalRef", c.name, c.email, c."verifiedDomains", c."optOut", c.notes, c.version
    FROM "Customer" c
    WHERE c."tenantId" = ${input.tenantId}::uuid AND c."externalRef" = ANY(${input.externalRefs}::text[])`);
}
