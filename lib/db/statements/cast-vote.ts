import { Prisma } from "@/lib/generated/prisma/client";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { countedVotesSql, voterRefusalSql } from "@/lib/db/statements/approval-rules";
import { auditInsertFromJson } from "@/lib/db/statements/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/wake-task";

export type VoteRefusal =
  | "not_found" | "expired" | "not_pending" | "not_eligible" | "self_approval" | "key_creator" | "own_edit" | "stale_hash" | "reason_required"
  | "already_voted" | "min_view_time";

export type CastVoteInput = {
  tenantId: string;
  actionId: string;
  reviewerId: string;
  verdict: Verdict;
  note: string | null;
  /** The payload hash the reviewer was shown. */
  payloadHash: string;
  decisionId: string;
  /**
   * What the reviewer's page says they had the arguments on screen (ms), or null. Stored clamped
   * to 0 … the current revision's age: nobody can have read a revision for longer than it existed.
   */
  viewedMs: number | null;
  /** The `decision.recorded` event, apart from what the vote decides (status, approvals, viewedMs). */
  recorded: AttestedAuditBody;
};

export type CastVoteResult =
  | { refusal: VoteRefusal; status: string; revision: number | null; quorum: number | null; minViewSeconds?: number | null; viewedMs?: number | null }
  | { refusal: null; status: "pending" | "approved" | "rejected"; approvals: number; quorum: number; revision: number };

type Row = {
  refusal: VoteRefusal | null; status: string; revision: number; quorum: number; newStatus: "pending" | "approved" | "rejected" | null; approvals: number | null;
  minViewSeconds: number | null; viewedMs: number | null;
};

/**
 * The vote, in one statement that checks everything it rests on and says why it refused: the
 * action pending and unexpired (database clock); the voter allowed to decide this revision
 * (approval-rules.ts, from the membership table, never from the caller); the hash the reviewer
 * saw is the current revision's; a rejection has a reason; one vote per member. If the vote
 * counts, the same statement records it, counts the revision's valid approvals (the same rule the
 * execution claim counts with), moves the action to approved or rejected, wakes its task and
 * appends the audit event. Run it in a transaction that holds `lockAction`: the count then sees
 * every vote committed before this one.
 */
export async function castVote(tx: SqlClient, input: CastVoteInput): Promise<CastVoteResult> {
  const reviewer = Prisma.sql`${input.reviewerId}::uuid`;
  const [row] = await query<Row>(tx, Prisma.sql`
    WITH subject AS (
      SELECT a.id, a.status::text AS status, a."taskId", r.id AS "revisionId", r.revision, r."payloadHash", r.quorum,
        (a."expiresAt" IS NULL OR a."expiresAt" <= now()) AS expired,
        ${voterRefusalSql(reviewer)} AS "voterRefusal",
        EXISTS (SELECT 1 FROM "Decision" d WHERE d."revisionId" = r.id AND d."reviewerId" = ${reviewer}) AS voted,
        ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} AS approvals,
        (r."policyDecision"->>'minViewSeconds')::int AS "minViewSeconds",
        LEAST(GREATEST(${input.viewedMs}::int, 0), floor(extract(epoch FROM now() - r."createdAt") * 1000)::int) AS "viewedMs"
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision" AND r.status = 'current'
      WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid
    ),
    verdict AS (
      SELECT s.*, CASE
          WHEN s.status = 'pending' AND s.expired THEN 'expired'
          WHEN s.status <> 'pending' THEN 'not_pending'
          WHEN s."voterRefusal" IS NOT NULL THEN s."voterRefusal"
          WHEN s."payloadHash" <> ${input.payloadHash} THEN 'stale_hash'
          WHEN ${input.verdict}::text = 'reject' AND ${input.note}::text IS NULL THEN 'reason_required'
          WHEN ${input.verdict}::text = 'approve' AND s."minViewSeconds" IS NOT NULL AND coalesce(s."viewedMs", 0) < s."minViewSeconds" * 1000
            THEN 'min_view_time'
          WHEN s.voted THEN 'already_voted'
        END AS refusal,
        s.approvals + CASE WHEN ${input.verdict}::text = 'approve' THEN 1 ELSE 0 END AS "approvalsAfter"
      FROM subject s
    ),
    outcome AS (
      SELECT v.*, CASE WHEN ${input.verdict}::text = 'reject' THEN 'rejected' WHEN v."approvalsAfter" >= v.quorum THEN 'approved' ELSE 'pending' END
        AS "newStatus"
      FROM verdict v WHERE v.refusal IS NULL
    ),
    cast_vote AS (
      INSERT INTO "Decision" (id, "tenantId", "actionId", "revisionId", "reviewerId", verdict, note, "payloadHash", "viewedMs")
      SELECT ${input.decisionId}::uuid, ${input.tenantId}::uuid, o.id, o."revisionId", ${reviewer}, ${input.verdict}::"Verdict",
        ${input.note}, ${input.payloadHash}, o."viewedMs"
      FROM outcome o
    ),
    moved AS (
      UPDATE "Action" a SET status = o."newStatus"::"ActionStatus", "decidedAt" = now(), "updatedAt" = now(),
        "statusReason" = CASE WHEN o."newStatus" = 'rejected' THEN ${input.note}
          ELSE 'Approved by ' || o."approvalsAfter" || ' of ' || o.quorum || ' required reviewers.' END
      FROM outcome o WHERE a.id = o.id AND o."newStatus" <> 'pending'
    ),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM outcome WHERE "newStatus" <> 'pending'`)}),
    events AS (
      SELECT ${JSON.stringify(input.recorded)}::jsonb || jsonb_build_object('status', o."newStatus",
        'data', ${JSON.stringify(input.recorded.data)}::jsonb || jsonb_build_object('revision', o.revision, 'approvals', o."approvalsAfter", 'quorum', o.quorum,
          'viewedMs', o."viewedMs")) AS event
      FROM outcome o
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT v.refusal, v.status, v.revision, v.quorum, o."newStatus", o."approvalsAfter" AS approvals, v."minViewSeconds", v."viewedMs"
    FROM verdict v LEFT JOIN outcome o ON true`);
  if (!row) return { refusal: "not_found", status: "missing", revision: null, quorum: null };
  if (row.refusal || !row.newStatus || row.approvals === null) {
    return {
      refusal: row.refusal ?? "not_pending", status: row.status, revision: row.revision, quorum: row.quorum,
      minViewSeconds: row.minViewSeconds, viewedMs: row.viewedMs,
    };
  }
  return { refusal: null, status: row.newStatus, approvals: row.approvals, quorum: row.quorum, revision: row.revision };
}
