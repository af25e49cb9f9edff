import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { unsealedAuditEventSql } from "@/lib/db/statements/read-unsealed-audit-events";

/** Tenants with events not yet in their tree (the sweep behind requestSeal). */
export async function listTenantsWithUnsealedAuditEvents(q: Queryable): Promise<string[]> {
  const rows = await query<{ tenantId: string }>(q, Prisma.sql`
    SELECT t.id AS "tenantId" FROM "Tenant" t
    WHERE EXISTS (SELECT 1 FROM "AuditEvent" e WHERE ${unsealedAuditEventSql(Prisma.sql`t.id`)})`);
  return rows.map((row) => row.tenantId);
}
