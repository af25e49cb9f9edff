import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** The tenants with audit events waiting to be sealed. */
export async function listTenantsWithUnsealedAuditEvents(q: Queryable): Promise<string[]> {
  const rows = await query<{ tenantId: string }>(q, Prisma.sql`SELECT DISTINCT "tenantId" FROM "AuditUnsealed"`);
  return rows.map((row) => row.tenantId);
}
