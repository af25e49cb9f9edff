import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { countedVotesSql } from "@/lib/db/statements/approval-rules";
import { requesterMayStillActSql, undecidedSql } from "@/lib/db/statements/reopen-lost-approvals";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/wake-task";

/**
 * Of the actions `lockApprovalsInScope` locked (reopen-lost-approvals.ts), approves again the
 * pending ones whose valid approvals (approval-rules.ts, the rule the vote and the claim count
 * with) make their quorum once more — an action reopened when a member's deciding roles were
 * removed, whose roles were then given back: their approval counts again, and no vote of theirs
 * could move it (they have one that counts). In one statement: status approved with the reason
 * the requester and the agent will read (no counting rejection: a rejection ends an action, so none
 * is expected), the task woken, and each one's `action.reapproved` event
 * (`events`, keyed by action id; the statement fills in `approvals` and `quorum`) written only if
 * that action moved. The claim checks the approvals and the state they rest on again before
 * anything runs. Like a reopen, it leaves an action whose proposing key is revoked or whose
 * requester may no longer act. Returns the ids it approved.
 */
export async function reapproveActions(
  tx: Queryable,
  input: { events: ReadonlyArray<{ actionId: string; event: AttestedAuditBody }>; reason: string },
): Promise<string[]> {
  if (input.events.length === 0) return [];
  const rows = await query<{ id: string }>(tx, Prisma.sql`
    WITH given AS (
      SELECT (g->>'actionId')::uuid AS "actionId", g->'event' AS event FROM jsonb_array_elements(${JSON.stringify(input.events)}::jsonb) g
    ),
    regained AS (
      SELECT a.id, r.quorum, ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} AS approvals
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      WHERE a.id IN (SELECT "actionId" FROM given) AND a.status = 'pending' AND ${undecidedSql()}
        AND ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} >= r.quorum AND ${countedVotesSql("reject", Prisma.sql`r."payloadHash"`)} = 0
        AND ${requesterMayStillActSql()}
    ),
    approved AS (
      UPDATE "Action" a SET status = 'approved', "decidedAt" = now(), "updatedAt" = now(),
        "statusReason" = ${input.reason} || ' (' || g.approvals || ' of ' || g.quorum || ' approvals count.)'
      FROM regained g WHERE a.id = g.id AND a.status = 'pending'
      RETURNING a.id, a."taskId"
    ),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM approved`)}),
    events AS (
      SELECT g.event || jsonb_build_object('data', (g.event->'data') || jsonb_build_object('approvals', x.approvals, 'quorum', x.quorum)) AS event, g."actionId"
      FROM given g JOIN approved o ON o.id = g."actionId" JOIN regained x ON x.id = g."actionId"
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events."actionId"` })})
    SELECT id FROM approved`);
  return rows.map((row) => row.id);
}
