import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

// How the outbox producers read past their cursors into a tenant's sealed leaves: one probe of the
// (tenantId, seq) index per cursor, whatever the estimates (as joins they read every tenant's
// seals: 12–75 ms a pass; lib/db/index-use.test.ts).

/**
 * Whether a seal follows the cursor held by `row` (a table alias with "tenantId" and "cursorSeq").
 * `OFFSET 0` keeps the EXISTS a probe per cursor (as in read-unsealed-audit-events.ts).
 */
export function hasSealAfterCursorSql(row: string): Sql {
  const r = Prisma.raw(row);
  return Prisma.sql`EXISTS (SELECT 1 FROM "AuditSeal" s WHERE s."tenantId" = ${r}."tenantId" AND s.seq = ${r}."cursorSeq" + 1 OFFSET 0)`;
}

/**
 * The next `batch` seals after the cursor held by `row`, joinable as `s` (seq, "eventId"): a
 * LATERAL with a LIMIT, so one range probe per cursor.
 */
export function sealsAfterCursorSql(row: string, batch: number): Sql {
  const r = Prisma.raw(row);
  return Prisma.sql`CROSS JOIN LATERAL (
        SELECT s.seq, s."eventId" FROM "AuditSeal" s
        WHERE s."tenantId" = ${r}."tenantId" AND s.seq > ${r}."cursorSeq" AND s.seq <= ${r}."cursorSeq" + ${batch}
        ORDER BY s.seq LIMIT ${batch}
      ) s`;
}
