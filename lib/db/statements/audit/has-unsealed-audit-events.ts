import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { unsealedAuditEventSql } from "@/lib/db/statements/audit/read-unsealed-audit-events";

/** Whether the tenant has events not yet in its tree from `floor` on (sealing's cheap first look). */
export async function hasUnsealedAuditEvents(q: Queryable, input: { tenantId: string; floor: string }): Promise<boolean> {
  const [row] = await query<{ any: boolean }>(q, Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM "AuditEvent" e WHERE ${unsealedAuditEventSql(Prisma.sql`${input.tenantId}::uuid`, input.floor)}) AS any`, { prepare: false });
  return row.any;
}
