import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";
import type { RiskLevel } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { countedVotesSql } from "@/lib/db/statements/approval-rules";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";

/**
 * Whose approvals may have stopped counting: those a member cast in one tenant (their deciding
 * roles were removed), those signed with one passkey (it was removed), or one action's (its claim
 * found no quorum).
 */
export type LostApprovalScope =
  | { kind: "member"; tenantId: string; userId: string }
  | { kind: "passkey"; passkeyId: string }
  | { kind: "action"; tenantId: string; actionId: string };

export type LostApproval = {
  id: string;
  tenantId: string;
  tool: string;
  riskLevel: RiskLevel;
  requesterLabel: string;
  revision: number;
};

/**
 * An approved action that has not run and whose window is open (database clock), whose current
 * revision needs approval and whose valid approvals (approval-rules.ts, the rule the vote and the
 * claim count with) no longer make its quorum: its status says approved, but no claim would run it.
 */
function lostSql(): Sql {
  return Prisma.sql`a.status = 'approved' AND a."consumedAt" IS NULL AND a."expiresAt" > now() AND r."requiresApproval"
    AND ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} < r.quorum`;
}

function scopeSql(scope: LostApprovalScope): Sql {
  switch (scope.kind) {
    case "member":
      return Prisma.sql`a."tenantId" = ${scope.tenantId}::uuid AND EXISTS (SELECT 1 FROM "Decision" d
        WHERE d."revisionId" = r.id AND d."reviewerId" = ${scope.userId}::uuid AND d.verdict = 'approve')`;
    case "passkey":
      return Prisma.sql`EXISTS (SELECT 1 FROM "Decision" d JOIN "DecisionSignature" s ON s."decisionId" = d.id
        WHERE d."revisionId" = r.id AND d.verdict = 'approve' AND s."passkeyId" = ${scope.passkeyId}::uuid)`;
    case "action":
      return Prisma.sql`a."tenantId" = ${scope.tenantId}::uuid AND a.id = ${scope.actionId}::uuid`;
  }
}

/**
 * Locks (in id order, until the transaction ends) and reads the approvals in `scope` that no
 * longer make a quorum. Run it in the transaction that made them stop counting, after the change,
 * and pass what it found, with one audit event each, to `reopenActions`.
 */
export async function lockLostApprovals(tx: Queryable, scope: LostApprovalScope): Promise<LostApproval[]> {
  return query<LostApproval>(tx, Prisma.sql`
    SELECT a.id, a."tenantId", a.tool, a."riskLevel"::text AS "riskLevel", a."requesterLabel", r.revision
    FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE ${scopeSql(scope)} AND ${lostSql()}
    ORDER BY a.id
    FOR UPDATE OF a`);
}

/**
 * Puts approved actions whose approvals no longer make a quorum back in the review queue, in one
 * statement that checks that again for each (so one a claim used meanwhile stays as it is): status
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
      FROM lost l WHERE a.id = l.id
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
