import { Prisma } from "@/lib/generated/prisma/client";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { countedVotesSql, decisionStillCountsSql, voterRefusalSql } from "@/lib/db/statements/actions/approval-rules";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

export type VoteRefusal =
  | "not_found" | "expired" | "not_pending" | "not_eligible" | "self_approval" | "key_creator" | "own_edit" | "stale_hash" | "reason_required"
  | "state_changed" | "already_voted" | "min_view_time"
  | SignatureRefusal;

/**
 * Why a passkey signature does not let a vote count: none where the revision's rule requires one
 * (`signature_required`); no challenge of this console (`signature_invalid`); its challenge was
 * already used (`signature_replayed`), issued to another member or session (`signature_foreign`)
 * or lapsed (`signature_expired`); the credential is not this member's, or was removed
 * (`signature_credential`); the receipt is for another action, revision, payload, policy version,
 * snapshot, verdict or reviewer (`signature_mismatch`); no user verification
 * (`signature_unverified`); the authenticator's counter did not increase (`signature_counter`).
 */
export type SignatureRefusal =
  | "signature_required" | "signature_invalid" | "signature_replayed" | "signature_foreign" | "signature_expired"
  | "signature_credential" | "signature_mismatch" | "signature_unverified" | "signature_counter";

/** A passkey assertion whose signature the caller verified (lib/passkeys/check-approval-assertion.ts); everything else about it is judged here. */
export type SignedVote = {
  challengeId: string;
  passkeyId: string;
  /** The session the vote comes from (the challenge must have been issued to it). */
  sessionId: string;
  counter: number;
  userVerified: boolean;
  backupEligible: boolean;
  backupState: boolean;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
};

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
  /** The passkey signature the vote carries, or null. */
  signed: SignedVote | null;
  /** The hash of "no snapshot", for a receipt of a revision that has none. */
  absentSnapshotHash: string;
  /**
   * The hash of the state the revision rests on, re-read under lock in this transaction
   * (read-live-state.ts), or null when it was not read. An approval counts only if it equals the
   * request snapshot's hash; a rejection does not need it.
   */
  liveSnapshotHash: string | null;
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
 * saw is the current revision's; a rejection has a reason; an approval rests on the state the
 * request snapshot recorded (its hash equals the live state's, re-read under lock by the caller —
 * a rejection stays possible on changed state); an approval of a revision whose rule
 * requires a signature carries a passkey signature whose receipt binds exactly this vote (and an
 * unused challenge issued to this member and session, the member's own live passkey, user
 * verification, a rising counter); one counting vote per member (the action's lock orders two
 * votes of one member: the second sees the first). If the vote
 * counts, the same statement records it, counts the revision's valid approvals (the same rule the
 * execution claim counts with), moves the action to approved or rejected, wakes its task and
 * appends the audit event. Run it in a transaction that holds `lockAction`: the count then sees
 * every vote committed before this one.
 */
// eslint-disable-next-line max-lines-per-function -- one SQL statement: the vote checks what it rests on where it writes
export async function castVote(tx: SqlClient, input: CastVoteInput): Promise<CastVoteResult> {
  const reviewer = Prisma.sql`${input.reviewerId}::uuid`;
  const signed = input.signed;
  const hasSig = Prisma.sql`${signed !== null}::boolean`;
  const [row] = await query<Row>(tx, Prisma.sql`
    WITH signer AS (
      SELECT c.id AS "challengeId", c."userId" AS "challengeUser", c."sessionId" AS "challengeSession", c."usedAt" IS NOT NULL AS used,
        c."expiresAt" <= statement_timestamp() AS lapsed, c.receipt, c."receiptHash", c.receipt::jsonb AS r,
        encode(sha256(convert_to(c.receipt, 'UTF8')), 'hex') = c."receiptHash"
          AND c.challenge = rtrim(translate(encode(decode(c."receiptHash", 'hex'), 'base64'), '+/', '-_'), '=') AS "hashHolds",
        p.id AS "passkeyId", p."userId" AS "passkeyUser", p."removedAt" IS NOT NULL AS removed, p.counter AS "storedCounter",
        p.name AS "passkeyName", p."credentialId", p."publicKeySpki", p.algorithm
      FROM "WebAuthnChallenge" c JOIN "Passkey" p ON p.id = ${signed?.passkeyId ?? null}::uuid
      WHERE c.id = ${signed?.challengeId ?? null}::uuid AND c.purpose = 'approval' AND c.receipt IS NOT NULL
    ),
    subject AS (
      SELECT a.id, a.status::text AS status, a."taskId", r.id AS "revisionId", r.revision, r."payloadHash", r.quorum, r."policyVersion",
        (a."expiresAt" IS NULL OR a."expiresAt" <= statement_timestamp()) AS expired,
        to_char(a."expiresAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expiry,
        (r."policyDecision"->>'signature') IS NOT DISTINCT FROM 'required' AS "signatureRequired",
        COALESCE((SELECT s.hash FROM "Snapshot" s WHERE s."revisionId" = r.id AND s.phase = 'request' LIMIT 1), ${input.absentSnapshotHash})
          AS "snapshotHash",
        ${voterRefusalSql(reviewer, { lock: true })} AS "voterRefusal",
        -- A vote of this member's that no longer counts (its passkey removed, say) does not stop them deciding again.
        EXISTS (SELECT 1 FROM "Decision" d WHERE d."revisionId" = r.id AND d."reviewerId" = ${reviewer}
          AND ${decisionStillCountsSql(Prisma.sql`r."payloadHash"`)}) AS voted,
        ${countedVotesSql("approve", Prisma.sql`r."payloadHash"`)} AS approvals,
        (r."policyDecision"->>'minViewSeconds')::int AS "minViewSeconds",
        LEAST(GREATEST(${input.viewedMs}::int, 0), floor(extract(epoch FROM now() - r."createdAt") * 1000)::int) AS "viewedMs"
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision" AND r.status = 'current'
      WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid
    ),
    verdict AS (
      SELECT s.*, g.*, CASE
          WHEN s.status = 'pending' AND s.expired THEN 'expired'
          WHEN s.status <> 'pending' THEN 'not_pending'
          WHEN s."voterRefusal" IS NOT NULL THEN s."voterRefusal"
          WHEN s."payloadHash" <> ${input.payloadHash} THEN 'stale_hash'
          WHEN ${input.verdict}::text = 'reject' AND ${input.note}::text IS NULL THEN 'reason_required'
          WHEN ${input.verdict}::text = 'approve' AND ${input.liveSnapshotHash}::text IS DISTINCT FROM s."snapshotHash" THEN 'state_changed'
          WHEN ${hasSig} AND g."challengeId" IS NULL THEN 'signature_invalid'
          WHEN ${hasSig} AND g.used THEN 'signature_replayed'
          WHEN NOT ${hasSig} AND ${input.verdict}::text = 'approve' AND s."signatureRequired" THEN 'signature_required'
          WHEN ${hasSig} AND (g."challengeUser" <> ${reviewer} OR g."challengeSession" <> ${signed?.sessionId ?? null}::uuid) THEN 'signature_foreign'
          WHEN ${hasSig} AND (g."passkeyUser" <> ${reviewer} OR g.removed) THEN 'signature_credential'
          WHEN ${hasSig} AND NOT (g."hashHolds" AND g.r->>'v' = '1' AND g.r->>'tenant' = ${input.tenantId}
            AND g.r->>'action' = s.id::text AND g.r->>'revision' = s.revision::text AND g.r->>'payloadHash' = s."payloadHash"
            AND g.r->>'policyVersion' = s."policyVersion"::text AND g.r->>'snapshotHash' = s."snapshotHash"
            AND g.r->>'verdict' = ${input.verdict}::text AND g.r->>'reviewer' = ${input.reviewerId}
            AND (g.r->>'expiry') IS NOT DISTINCT FROM s.expiry) THEN 'signature_mismatch'
          WHEN ${hasSig} AND g.lapsed THEN 'signature_expired'
          WHEN ${hasSig} AND NOT ${signed?.userVerified ?? false}::boolean THEN 'signature_unverified'
          WHEN ${hasSig} AND NOT (${signed?.counter ?? 0}::bigint > g."storedCounter" OR (${signed?.counter ?? 0}::bigint = 0 AND g."storedCounter" = 0))
            THEN 'signature_counter'
          WHEN ${input.verdict}::text = 'approve' AND s."minViewSeconds" IS NOT NULL AND coalesce(s."viewedMs", 0) < s."minViewSeconds" * 1000
            THEN 'min_view_time'
          WHEN s.voted THEN 'already_voted'
        END AS refusal,
        s.approvals + CASE WHEN ${input.verdict}::text = 'approve' THEN 1 ELSE 0 END AS "approvalsAfter"
      FROM subject s LEFT JOIN signer g ON true
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
    signature AS (
      INSERT INTO "DecisionSignature" ("decisionId", "tenantId", "passkeyId", "credentialId", "passkeyName", "publicKeySpki", algorithm, receipt,
        "receiptHash", nonce, "authenticatorData", "clientDataJSON", signature, counter, "userVerified", "backupEligible", "backupState")
      SELECT ${input.decisionId}::uuid, ${input.tenantId}::uuid, o."passkeyId", o."credentialId", o."passkeyName", o."publicKeySpki", o.algorithm,
        o.receipt, o."receiptHash", o.r->>'nonce', ${signed?.authenticatorData ?? null}, ${signed?.clientDataJSON ?? null},
        ${signed?.signature ?? null}, ${signed?.counter ?? 0}, ${signed?.userVerified ?? false}, ${signed?.backupEligible ?? false},
        ${signed?.backupState ?? false}
      FROM outcome o WHERE ${hasSig}
    ),
    spent AS (
      UPDATE "WebAuthnChallenge" c SET "usedAt" = now() FROM outcome o WHERE ${hasSig} AND c.id = o."challengeId"
    ),
    counted AS (
      UPDATE "Passkey" p SET counter = ${signed?.counter ?? 0}, "lastUsedAt" = now() FROM outcome o WHERE ${hasSig} AND p.id = o."passkeyId"
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
