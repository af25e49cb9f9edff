import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";

/**
 * Changes one member's reviewer-email mode in one tenant from `before` to `after`, with its audit
 * event, only while it is still `before` (a change made meanwhile is not overwritten blindly).
 * Returns whether it changed.
 */
export async function setMemberEmailMode(
  q: Queryable,
  input: { tenantId: string; userId: string; before: "immediate" | "digest"; after: "immediate" | "digest"; event: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH changed AS (
      UPDATE "Membership" SET "emailMode" = ${input.after}::"EmailMode"
      WHERE "tenantId" = ${input.tenantId}::uuid AND "userId" = ${input.userId}::uuid AND "emailMode" = ${input.before}::"EmailMode"
      RETURNING id
    ),
    ${auditCte(input.event, { gate: "changed" })}
    SELECT id FROM changed`);
  return rows.length > 0;
}
