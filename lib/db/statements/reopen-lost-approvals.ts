import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { countedVotesSql } from "@/lib/db/statements/approval-rules";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-key-rules";
import { requesterMayActSql } from "@/lib/db/statements/requester-rules";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

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

/** An action still to be decided or run, whose window is open (database clock), whose current revision needs approval. */
export function undecidedSql(): Sql {
  return Prisma.sql`a.status IN ('pending', 'approved') AND a."consumedAt" IS NULL AND a."expiresAt" > now() AND r."requiresApproval"`;
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
export function requesterMayStillActSql(): Sql {
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
 * only the pending ones (what a re-approval may move, reapprove-actions.ts), so approved actions'
 * claims do not wait for it.
 */
export async function lockApprovalsInScope(tx: Queryable, scope: LostApprovalScope, options: { pendingOnly?: boolean } = {}): Promise<LostApproval[]> {
  return query<LostApproval>(tx, Prisma.sql`
    SELECT a.id, a."tenantId", a.tool, a."riskLevel"::text AS "riskLevel", a."requesterLabel", r.revision
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE ${scopeSql(scope)} AND ${undecidedSql()}${options.pendingOnly ? Prisma.sql` AND a.status = 'pending'` : Prisma.empty}
    ORDER BY a.id
    FOR UPDATE OF a`);
}

/**
 * Of the actions `lockApprovalsInScope` locked, puts back in the review queue the approved ones
 * whose approvals no longer make a quorum (lostSql), in one statement: status
 * pending, undecided, with the reason the requester and the agent will read; each one's
 * `action.reopened` event (`events`, keyed by action id; the statement fills in `approvals` and
 * `quorum`) is written only if that action moved. Returns the ids it reopened.
 */
export async function reopenActions(
  tx: Queryable,
  input: { events: ReadonlyArray<{ actionId: string; event: AttestedAuditBody }>; reason: string },
): Promise<string[]> {
  if (input.events.length === 0) return [];
  const rows = await query<{ id: string }>(tx, Prisma.sql`
    WITH given AS (
      SELECT (g->>'actionId')::uuid AS "actionId", g->'event' AS event FROM jsonb_array_elements(${JSON.stringify(input.events)}::jsonb) g
    ),
    lost AS (
      SELECT a.id, r.quorum, ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} AS approvals
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      WHERE a.id IN (SELECT "actionId" FROM given) AND ${lostSql()}
    ),
    reopened AS (
      UPDATE "Action" a SET status = 'pending', "decidedAt" = NULL, "updatedAt" = now(),
        "statusReason" = ${input.reason} || ' (' || l.approvals || ' of ' || l.quorum || ' approvals still count.)'
      FROM lost l WHERE a.id = l.id AND a.status = 'approved' AND a."consumedAt" IS NULL
      RETURNING a.id
    ),
    events AS (
      SELECT g.event || jsonb_build_object('data', (g.event->'data') || jsonb_build_object('approvals', l.approvals, 'quorum', l.quorum)) AS event, g."actionId"
      FROM given g JOIN reopened o ON o.id = g."actionId" JOIN lost l ON l.id = g."actionId"
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events."actionId"` })})
    SELECT id FROM reopened`);
  return rows.map((row) => row.id);
}
