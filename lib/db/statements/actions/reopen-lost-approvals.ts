import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { countedVotesSql } from "@/lib/db/statements/actions/approval-rules";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";
import { requesterMayActSql } from "@/lib/db/statements/actions/requester-rules";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

/**
 * Whose approvals may have stopped counting: those a member cast in one tenant (their deciding
 * roles were removed), those signed with one passkey (it was removed), or one action's (its claim
 * found no quorum).
 */
export type LostApprovalScope =
  | { kind: "member"; tenantId: string; userId: string }
  | { kind: "passkey"; passkeyId: string; tenantIds: string[] }
  | { kind: "action"; tenantId: string; actionId: string };

export type LostApproval = {
  id: string;
  tenantId: string;
  tool: string;
  riskLevel: RiskLevel;
  requesterLabel: string;
  revision: number;
};

/** An action still to be decided or run, whose window is open (database clock, when the statement runs), whose current revision needs approval. */
function undecidedSql(): Sql {
  return Prisma.sql`a.status IN ('pending', 'approved') AND a."consumedAt" IS NULL AND a."expiresAt" > statement_timestamp() AND r."requiresApproval"`;
}

/**
 * An approved action that has not run, whose valid approvals (approval-rules.ts, the rule the vote
 * and the claim count with) no longer make its quorum: its status says approved, but no claim
 * would run it. One whose proposing key is revoked, or whose requester may no longer act, is left
 * as it is: no claim would run it whatever reviewers decided, so it is not put before them again.
 */
function lostSql(): Sql {
  return Prisma.sql`a.status = 'approved' AND ${undecidedSql()} AND ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} < r.quorum
    AND ${requesterMayStillActSql()}`;
}

/**
 * The action's requester may still have it run: its proposing key (if any) is not revoked, and the
 * member who requested it (if any) may still act (a claim checks both). Reopens and re-approvals
 * leave other actions as they are: no claim would run them whatever reviewers decided.
 */
function requesterMayStillActSql(): Sql {
  return Prisma.sql`(a."requesterApiKeyId" IS NULL OR ${apiKeyIsLiveSql(Prisma.sql`a."requesterApiKeyId"`)})
    AND (a."requesterUserId" IS NULL OR ${requesterMayActSql(Prisma.sql`a."tenantId"`, Prisma.sql`a."requesterUserId"`)})`;
}

function scopeSql(scope: LostApprovalScope): Sql {
  switch (scope.kind) {
    case "member":
      return Prisma.sql`a."tenantId" = ${scope.tenantId}::uuid AND EXISTS (SELECT 1 FROM "Decision" d
        WHERE d."revisionId" = r.id AND d."reviewerId" = ${scope.userId}::uuid AND d.verdict = 'approve')`;
    case "passkey":
      return Prisma.sql`a."tenantId" = ANY(${scope.tenantIds}::uuid[]) AND EXISTS (SELECT 1 FROM "Decision" d JOIN "DecisionSignature" s ON s."decisionId" = d.id
        WHERE d."revisionId" = r.id AND d.verdict = 'approve' AND s."passkeyId" = ${scope.passkeyId}::uuid)`;
    case "action":
      return Prisma.sql`a."tenantId" = ${scope.tenantId}::uuid AND a.id = ${scope.actionId}::uuid`;
  }
}

/**
 * Locks (in id order, until the transaction ends) and reads every undecided or approved action in
 * `scope` — whether or not its approvals still count as this statement's snapshot sees them: a
 * vote, a claim or another change that could move them waits for these locks, or was committed
 * before they were granted, so `reopenActions`, a statement after this one, judges each on
 * everything committed. Run it in the transaction that made approvals stop counting, after the
 * change, and pass what it found, with one audit event each, to `reopenActions`. `pendingOnly`:
 * only the pending ones (what `reapproveActions` may move), so approved actions' claims do not
 * wait for it.
 */
export async function lockApprovalsInScope(tx: Queryable, scope: LostApprovalScope, options: { pendingOnly?: boolean } = {}): Promise<LostApproval[]> {
  return query<LostApproval>(tx, Prisma.sql`
    SELECT a.id, a."tenantId", a.tool, a."riskLevel"::text AS "riskLevel", a."requesterLabel", r.revision
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE ${scopeSql(scope)} AND ${undecidedSql()}${options.pendingOnly ? Prisma.sql` AND a.status = 'pending'` : Prisma.empty}
    ORDER BY a.id
    FOR UPDATE OF a`);
}

type MovedEvents = { events: ReadonlyArray<{ actionId: string; event: AttestedAuditBody }>; reason: string };

/**
 * Of the actions `lockApprovalsInScope` locked, puts back in the review queue the approved ones
 * whose approvals no longer make a quorum (lostSql), in one statement: status
 * pending, undecided, with the reason the requester and the agent will read; each one's
 * `action.reopened` event (`events`, keyed by action id; the statement fills in `approvals` and
 * `quorum`) is written only if that action moved. Returns the ids it reopened.
 */
export async function reopenActions(tx: Queryable, input: MovedEvents): Promise<string[]> {
  return moveRecounted(tx, { ...input, judge: lostSql(), from: "approved", to: "pending", counted: " approvals still count.)" });
}

/**
 * Of the actions `lockApprovalsInScope` locked (pending only), approves the ones whose valid
 * approvals make their quorum again — an action reopened when a member's deciding roles were
 * removed, whose roles were then given back: their approval counts again, and no vote of theirs
 * could move it (they have one that counts). No counting rejection (a rejection ends an action, so
 * none is expected), and, like a reopen, not one whose requester may no longer have it run. In one
 * statement: status approved with the reason the requester and the agent will read, the task
 * woken, and each one's `action.reapproved` event (filled in like a reopen's) written only if that
 * action moved. The claim checks the approvals and the state they rest on again before anything
 * runs. Returns the ids it approved.
 */
export async function reapproveActions(tx: Queryable, input: MovedEvents): Promise<string[]> {
  const judge = Prisma.sql`a.status = 'pending' AND ${undecidedSql()}
    AND ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} >= r.quorum AND ${countedVotesSql("reject", Prisma.sql`r."payloadHash"`)} = 0
    AND ${requesterMayStillActSql()}`;
  return moveRecounted(tx, { ...input, judge, from: "pending", to: "approved", counted: " approvals count.)" });
}

/**
 * The one shape of a reopen and a re-approval: the given actions that `judge` holds for (over `a`
 * and its current revision `r`, on everything committed) move from `from` to `to` in one
 * statement, with the reason and the count of approvals that count, each one's event filled in
 * with `approvals` and `quorum` and written only if it moved; an approval wakes the action's task.
 */
async function moveRecounted(
  tx: Queryable,
  input: MovedEvents & { judge: Sql; from: "approved" | "pending"; to: "pending" | "approved"; counted: string },
): Promise<string[]> {
  if (input.events.length === 0) return [];
  const rows = await query<{ id: string }>(tx, Prisma.sql`
    WITH given AS (
      SELECT (g->>'actionId')::uuid AS "actionId", g->'event' AS event FROM jsonb_array_elements(${JSON.stringify(input.events)}::jsonb) g
    ),
    judged AS (
      SELECT a.id, r.quorum, ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} AS approvals
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      WHERE a.id IN (SELECT "actionId" FROM given) AND ${input.judge}
    ),
    moved AS (
      UPDATE "Action" a SET status = ${input.to}::"ActionStatus", "updatedAt" = now(),
        "decidedAt" = CASE WHEN ${input.to}::text = 'approved' THEN now() END,
        "statusReason" = ${input.reason} || ' (' || j.approvals || ' of ' || j.quorum || ${input.counted}
      FROM judged j WHERE a.id = j.id AND a.status = ${input.from}::"ActionStatus" AND a."consumedAt" IS NULL
      RETURNING a.id, a."taskId"
    ),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM moved`, Prisma.sql`${input.to}::text = 'approved'`)}),
    events AS (
      SELECT g.event || jsonb_build_object('data', (g.event->'data') || jsonb_build_object('approvals', j.approvals, 'quorum', j.quorum)) AS event, g."actionId"
      FROM given g JOIN moved o ON o.id = g."actionId" JOIN judged j ON j.id = g."actionId"
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events."actionId"` })})
    SELECT id FROM moved`);
  return rows.map((row) => row.id);
}
