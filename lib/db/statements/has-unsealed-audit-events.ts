import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { unsealedAuditEventSql } from "@/lib/db/statements/read-unsealed-audit-events";

/** Whether the tenant has events not yet in its tree (sealing's cheap first look). */
export async function hasUnsealedAuditEvents(q: Queryable, input: { tenantId: string }): Promise<boolean> {
  const [row] = await query<{ any: boolean }>(q, Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM "AuditEvent" e WHERE ${unsealedAuditEventSql(Prisma.sql`${input.tenantId}::uuid`)}) AS any`);
  return row.any;
}
