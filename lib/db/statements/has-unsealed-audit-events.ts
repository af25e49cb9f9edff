import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Whether the tenant has audit events waiting to be sealed into its chain (one index probe). */
export async function hasUnsealedAuditEvents(q: Queryable, input: { tenantId: string }): Promise<boolean> {
  const [row] = await query<{ any: boolean }>(q, Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM "AuditUnsealed" WHERE "tenantId" = ${input.tenantId}::uuid) AS any`);
  return row.any;
}
