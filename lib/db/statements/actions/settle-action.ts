import { Prisma } from "@/lib/generated/prisma/client";
import type { ActionStatus } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

/**
 * Moves one action from one of `from` to the end state `to` (expired, invalidated, cancelled) with
 * the reason the requester and the agent will read, in one statement with its audit event and
 * its task's wake-up. False: the action was not in one of `from` (or, with `unexpired`, its window
 * had closed); nothing was written.
 */
export async function settleAction(
  q: Queryable,
  input: {
    tenantId: string; actionId: string; from: ActionStatus[]; to: ActionStatus; reason: string; event: AttestedAuditBody;
    /** Only while its approval window is open (database clock, when this statement runs: the transaction may have waited for the action's lock): an expired action is not settled otherwise. */
    unexpired?: boolean;
  },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH settled AS (
      UPDATE "Action" SET status = ${input.to}::"ActionStatus", "statusReason" = ${input.reason}, "updatedAt" = now(),
        "decidedAt" = COALESCE("decidedAt", now())
      WHERE id = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status::text = ANY(${input.from}::text[])
        AND (NOT ${input.unexpired ?? false} OR "expiresAt" IS NULL OR "expiresAt" > statement_timestamp())
      RETURNING id, "taskId"
    ),
    ${auditCte(input.event, { gate: "settled" })},
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM settled`)})
    SELECT id FROM settled`);
  return rows.length === 1;
}
