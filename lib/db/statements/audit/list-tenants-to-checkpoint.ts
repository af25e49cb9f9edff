import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Tenants whose tree has grown past their latest signed checkpoint (or has leaves and none). */
export async function listTenantsToCheckpoint(q: Queryable): Promise<string[]> {
  const rows = await query<{ tenantId: string }>(q, Prisma.sql`
    SELECT t.id AS "tenantId" FROM "Tenant" t
    WHERE (SELECT s.seq FROM "AuditSeal" s WHERE s."tenantId" = t.id ORDER BY s.seq DESC LIMIT 1)
      > COALESCE((SELECT c.size FROM "AuditCheckpoint" c WHERE c."tenantId" = t.id ORDER BY c.size DESC LIMIT 1), 0)`);
  return rows.map((row) => row.tenantId);
}
