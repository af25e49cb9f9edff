import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type CustomerRow = {
  id: string;
  externalRef: string;
  name: string;
  email: string;
  verifiedDomains: string[];
  optOut: boolean;
  notes: string;
  version: number;
  invoices: Array<{ number: string; status: string; amountDueMinor: number }>;
};

/**
 * One customer of the tenant by reference or email, with its invoices. `lock`: inside the
 * claim's transaction, the customer row is locked for share until the effect commits.
 */
export async function readCustomer(
  q: Queryable,
  input: { tenantId: string; externalRef?: string; email?: string; lock?: boolean },
): Promise<CustomerRow | null> {
  const [row] = await query<CustomerRow>(q, Prisma.sql`
    SELECT c.id, c."externalRef", c.name, c.email, c."verifiedDomains", c."optOut", c.notes, c.version,
      COALESCE((SELECT json_agg(json_build_object('number', i.number, 'status', i.status, 'amountDueMinor', i."amountDueMinor") ORDER BY i.number)
                FROM "Invoice" i WHERE i."customerId" = c.id AND i."tenantId" = c."tenantId"), '[]') AS invoices
    FROM "Customer" c
    WHERE c."tenantId" = ${input.tenantId}::uuid
      AND ${input.externalRef !== undefined ? Prisma.sql`c."externalRef" = ${input.externalRef}` : Prisma.sql`c.email = ${input.email ?? ""}`}
    ORDER BY c."externalRef" LIMIT 1
    ${input.lock ? Prisma.sql`FOR SHARE OF c` : Prisma.empty}`);
  return row ?? null;
}
