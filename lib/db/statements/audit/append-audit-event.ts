import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";

/** Writes one audit event on its own (unsealed). */
export async function insertAuditEvent(q: Queryable, body: AttestedAuditBody): Promise<{ id: bigint }> {
  const [row] = await query<{ id: bigint }>(q, Prisma.sql`WITH ${auditCte(body)} SELECT id FROM audit`);
  return row;
}
