import { Prisma } from "@/lib/generated/prisma/client";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { countedGrantVotesSql, countedVotesSql, decisionStillCountsSql, voterRefusalSql } from "@/lib/db/statements/actions/approval-rules";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

export type VoteRefusal =
  | "not_found" | "expired" | "not_pending" | "not_eligible" | "self_approval" | "key_creator" | "own_edit" | "stale_hash" | "reason_required"
  | "state_changed" | "already_voted" | "min_view_time" | "grant_not_allowed"
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
  /** The standing grant this approval also approves (lib/grants/grant-terms.ts, checked by the caller), or null. */
  grant: VoteGrant | null;
};

/**
 * A grant an approval carries: its terms and their hash, the id it is made under, and its
 * `grant.approved` event (the statement fills in the expiry and who approved it).
 */
export type VoteGrant = {
  id: string;
  hash: string;
  terms: { constraint: string; description: string; maxCalls: number | null; totalArgument: string | null; maxTotal: number | null; ttlSeconds: number };
  scope: { apiKeyId?: string; taskId?: string };
  /** The longest any grant may run; a rule may cap it lower (its decision's `grantMaxSeconds`). */
  maxTtlSeconds: number;
  approved: AttestedAuditBody;
};

export type CastVoteResult =
  | { refusal: VoteRefusal; status: string; revision: number | null; quorum: number | null; minViewSeconds?: number | null; viewedMs?: number | null }
  | { refusal: null; status: "pending" | "approved" | "rejected"; approvals: number; quorum: number; revision: number; grant: MadeGrant | null };

/** The grant the vote made (its quorum of approvals all bound the same terms). */
export type MadeGrant = { id: string; expiresAt: Date };

type Row = {
  refusal: VoteRefusal | null; status: string; revision: number; quorum: number; newStatus: "pending" | "approved" | "rejected" | null; approvals: number | null;
  minViewSeconds: number | null; viewedMs: number | null; grantId: string | null; grantExpiresAt: Date | null;
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
  const grant = input.verdict === "approve" ? input.grant : null;
  const grantHash = grant?.hash ?? null;
  // A grant vote locks the tenant's row before the task it wakes, as a resume does; one statement
  // orders its CTEs as PostgreSQL likes, so the tenant is locked first in a statement of its own.
  if (grant) await query(tx, Prisma.sql`SELECT id FROM "Tenant" WHERE id = ${input.tenantId}::uuid FOR NO KEY UPDATE`);
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
        ${countedGrantVotesSql(Prisma.sql`r."payloadHash"`, Prisma.sql`${grantHash}::text`)} AS "grantApprovals",
        a.tool, a."riskRank", r."policyDecision"->>'ruleId' AS "ruleId", (r."policyDecision"->>'grantMaxSeconds')::int AS "grantMaxSeconds",
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
          -- The rule caps a grant's duration (24h at most, 0 for none).
          WHEN ${grant?.terms.ttlSeconds ?? null}::int > LEAST(COALESCE(s."grantMaxSeconds", ${grant?.maxTtlSeconds ?? 0}::int), ${grant?.maxTtlSeconds ?? 0}::int)
            THEN 'grant_not_allowed'
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
            AND (g.r->>'expiry') IS NOT DISTINCT FROM s.expiry AND (g.r->>'grant') IS NOT DISTINCT FROM ${grantHash}::text) THEN 'signature_mismatch'
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
      INSERT INTO "Decision" (id, "tenantId", "actionId", "revisionId", "reviewerId", verdict, note, "payloadHash", "viewedMs", "grantTerms", "grantTermsHash")
      SELECT ${input.decisionId}::uuid, ${input.tenantId}::uuid, o.id, o."revisionId", ${reviewer}, ${input.verdict}::"Verdict",
        ${input.note}, ${input.payloadHash}, o."viewedMs", ${grant ? JSON.stringify(grant.terms) : null}::jsonb, ${grantHash}::text
      FROM outcome o
    ),
    ${grantMadeSql(input)},
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
      UNION ALL
      SELECT ${JSON.stringify(grant?.approved ?? {})}::jsonb || jsonb_build_object('data', ${JSON.stringify(grant?.approved.data ?? {})}::jsonb
        || jsonb_build_object('expiresAt', to_char(m."expiresAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'approvedBy', to_jsonb(m."approvedBy")))
      FROM grant_made m
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.event->>'type'` })})
    SELECT v.refusal, v.status, v.revision, v.quorum, o."newStatus", o."approvalsAfter" AS approvals, v."minViewSeconds", v."viewedMs",
      (SELECT id FROM grant_made) AS "grantId", (SELECT "expiresAt" FROM grant_made) AS "grantExpiresAt"
    FROM verdict v LEFT JOIN outcome o ON true`);
  if (!row) return { refusal: "not_found", status: "missing", revision: null, quorum: null };
  if (row.refusal || !row.newStatus || row.approvals === null) {
    return {
      refusal: row.refusal ?? "not_pending", status: row.status, revision: row.revision, quorum: row.quorum,
      minViewSeconds: row.minViewSeconds, viewedMs: row.viewedMs,
    };
  }
  const made = row.grantId && row.grantExpiresAt ? { id: row.grantId, expiresAt: row.grantExpiresAt } : null;
  return { refusal: null, status: row.newStatus, approvals: row.approvals, quorum: row.quorum, revision: row.revision, grant: made };
}

/**
 * `grant_made`: the grant, when this approval completes the quorum and every counting approval
 * binds the same terms (votes with other terms, or none, do not combine into a grant), and the
 * tenant's agents are not stopped. Its expiry
 * is on the database clock; the tenant's grants version moves so every console assesses again.
 */
function grantMadeSql(input: CastVoteInput): Prisma.Sql {
  const grant = input.verdict === "approve" ? input.grant : null;
  if (!grant) return Prisma.sql`grant_made AS (SELECT NULL::uuid AS id, NULL::timestamptz AS "expiresAt", NULL::text[] AS "approvedBy" WHERE false), grant_bump AS (SELECT 1)`;
  const t = grant.terms;
  // No grant while the stop button holds the tenant's agents: judged on its row, locked (castVote
  // took it first), so a vote under way when the button is pressed waits for it and sees it.
  return Prisma.sql`grant_tenant AS (
      SELECT t.id FROM "Tenant" t WHERE t.id = ${input.tenantId}::uuid AND t."agentsPausedAt" IS NULL FOR NO KEY UPDATE
    ),
    grant_made AS (
      INSERT INTO "Grant" (id, "tenantId", "sourceActionId", "sourceRevision", "apiKeyId", "taskId", tool, "policyVersion", "ruleId", "maxRiskRank",
        signed, "constraint", description, terms, "termsHash", "maxCalls", "totalArgument", "maxTotal", "approvedBy", "expiresAt")
      SELECT ${grant.id}::uuid, ${input.tenantId}::uuid, o.id, o.revision, ${grant.scope.apiKeyId ?? null}::uuid, ${grant.scope.taskId ?? null}::uuid,
        o.tool, o."policyVersion", o."ruleId", o."riskRank", o."signatureRequired", ${t.constraint}, ${t.description}, ${JSON.stringify(t)}::jsonb,
        ${grant.hash}, ${t.maxCalls}::int, ${t.totalArgument}::text, ${t.maxTotal}::bigint,
        ARRAY(SELECT d."reviewerId"::text FROM "Decision" d WHERE d."revisionId" = o."revisionId" AND d."grantTermsHash" = ${grant.hash}
          AND d.verdict = 'approve' AND NOT d.void ORDER BY d."createdAt") || ${input.reviewerId}::text,
        date_trunc('milliseconds', statement_timestamp()) + make_interval(secs => ${t.ttlSeconds}::int)
      FROM outcome o, grant_tenant
      WHERE o."newStatus" = 'approved' AND o."grantApprovals" + 1 >= o.quorum
      ON CONFLICT DO NOTHING
      RETURNING id, "expiresAt", "approvedBy"
    ),
    grant_bump AS (
      UPDATE "Tenant" t SET "grantsVersion" = t."grantsVersion" + 1 FROM grant_made m WHERE t.id = ${input.tenantId}::uuid
    )`;
}
