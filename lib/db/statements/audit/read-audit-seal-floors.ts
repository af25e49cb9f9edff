import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The floor on each tenant's newest seal (xid8 as text; "0" for an empty tree): every visible event
 * of a transaction older than it is sealed. One tenant, or all. Sealing's readers take it as a
 * parameter planned for its value (lib/db/statements/audit/read-unsealed-audit-events.ts).
 */
export async function readAuditSealFloors(q: Queryable, input: { tenantId?: string } = {}): Promise<Array<{ tenantId: string; floor: string }>> {
  return query<{ tenantId: string; floor: string }>(q, Prisma.sql`
    SELECT t.id AS "tenantId",
      COALESCE((SELECT s.floor FROM "AuditSeal" s WHERE s."tenantId" = t.id ORDER BY s.seq DESC LIMIT 1), '0'::xid8)::text AS floor
    FROM "Tenant" t ${input.tenantId === undefined ? Prisma.empty : Prisma.sql`WHERE t.id = ${input.tenantId}::uuid`}`);
}
