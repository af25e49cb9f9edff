import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { jsonParam, query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { countedVotesSql, mayDecideNowSql } from "@/lib/db/statements/actions/approval-rules";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { agentsPausedSql } from "@/lib/db/statements/tenant/agent-pause-rules";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";
import { requesterMayActSql } from "@/lib/db/statements/actions/requester-rules";

/** Why an approval may not execute; `not_executable.<status>` for an action that is not approved. */
export type ClaimRefusal =
  | "executor_not_allowed" | "not_found" | "already_executed" | "expired" | "hash_mismatch" | `not_executable.${string}`
  | "payload_tampered" | "no_quorum" | "api_key_revoked" | "requester_inactive" | "agents_paused" | "state_changed"
  /** Judged before the claim, with the executing member's membership (lockExecutionStanding). */
  | "session_ended";

export type ClaimInput = {
  tenantId: string;
  actionId: string;
  /** The revision `lockAction` read, whose stored payload was hashed. */
  revisionId: string;
  /** The hash the caller holds, or null when it sends none. */
  callerHash: string | null;
  /**
   * The member who executes it (from the console), who must be allowed to decide in the action's
   * tenant now; null when the requester runs its own action (its API key, if it has one, is
   * checked below).
   */
  executingMemberId: string | null;
  /** SHA-256 of the canonical payload, recomputed from the stored revision. */
  recomputedHash: string;
  /** The live state, re-read under lock just now, and its hash; `absentHash` is the hash of no snapshot. */
  liveSnapshot: JsonObject | null;
  liveSnapshotHash: string;
  absentSnapshotHash: string;
  executionId: string;
  idempotencyKey: string;
  claimedBy: string;
  leaseSeconds: number;
  /** The `execution.started` event. */
  started: AttestedAuditBody;
};

/**
 * The one use of an approval, in one statement that checks everything execution rests on and says
 * why it refused: the member who executes it, if a member does, may decide in the action's tenant
 * now (approval-rules.ts: a role removed or a user disabled while the execution waits for the
 * action's lock still stops it, and nothing about the action is answered or settled for them
 * first); unconsumed and not already run; unexpired (database clock); the caller's hash,
 * if any, is the current revision's; the revision is current and its stored hashes equal the hash
 * recomputed from its payload; for an action that needs approval, a quorum of valid approvals of
 * exactly that hash and no valid rejection (approval-rules.ts — the same rule the vote counts
 * with, never a status column or a counter); the key that proposed it, if one did, is not revoked
 * (api-key-rules.ts), and the member who requested it, if one did, may still have agents act for them
 * (requester-rules.ts: a member of the tenant, not disabled, who may start tasks); the stop button does not hold the tenant's agents or the requesting key
 * (agent-pause-rules.ts: the approval stays unused until they are resumed); and
 * the state it rests on is unchanged. What it judges of who acts cannot change between the check
 * and the commit: the key's row is share-locked here (a revocation or a key's pause under way is
 * waited for and seen; one that comes later waits for the execution), and the memberships, the
 * executing member's session and the tenant's stop button (agentsPauseGateSql) are held from the
 * transaction's first statement (lockExecutionStanding). If nothing
 * refuses, the same statement consumes the approval, creates the execution with its idempotency
 * key and a lease (database clock), stores the pre-execution snapshot and appends the audit
 * event. Run it in a transaction that holds `lockExecutionStanding`, then `lockAction`.
 */
export async function claimApproval(tx: SqlClient, input: ClaimInput): Promise<{ refusal: ClaimRefusal | null; status: string | null }> {
  const recomputed = Prisma.sql`${input.recomputedHash}::text`;
  const [row] = await query<{ refusal: ClaimRefusal | null; status: string }>(tx, Prisma.sql`
    WITH subject AS (
      SELECT a.id, a."tenantId", a."requesterApiKeyId", a."requesterUserId", a.status::text AS status, a."consumedAt" IS NOT NULL AS consumed, a."payloadHash" AS "actionHash",
        (a."expiresAt" IS NULL OR a."expiresAt" <= statement_timestamp()) AS expired,
        r.id AS "revisionId", r.revision, r.status::text AS "revisionStatus", r."payloadHash" AS "revisionHash", r."requiresApproval", r.quorum,
        -- Votes are counted only for an action that needs them.
        CASE WHEN r."requiresApproval" THEN ${countedVotesSql("approve", recomputed)} END AS approvals,
        CASE WHEN r."requiresApproval" THEN ${countedVotesSql("reject", recomputed)} END AS rejections,
        COALESCE((SELECT s.hash FROM "Snapshot" s WHERE s."revisionId" = r.id AND s.phase = 'request' LIMIT 1), ${input.absentSnapshotHash})
          AS "requestSnapshotHash"
      FROM "Action" a JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
      WHERE a.id = ${input.actionId}::uuid AND a."tenantId" = ${input.tenantId}::uuid
    ),
    verdict AS (
      SELECT s.*, CASE
          WHEN ${input.executingMemberId}::uuid IS NOT NULL
            AND NOT ${mayDecideNowSql(Prisma.sql`s."tenantId"`, Prisma.sql`${input.executingMemberId}::uuid`, null, { lock: true })} THEN 'executor_not_allowed'
          WHEN s.consumed OR s.status IN ('executing', 'succeeded', 'failed', 'unknown') THEN 'already_executed'
          WHEN s.status = 'expired' OR (s.status IN ('pending', 'approved') AND s.expired) THEN 'expired'
          WHEN ${input.callerHash}::text IS NOT NULL AND ${input.callerHash}::text <> s."actionHash" THEN 'hash_mismatch'
          WHEN s.status <> 'approved' THEN 'not_executable.' || s.status
          WHEN s."revisionId" <> ${input.revisionId}::uuid OR s."revisionStatus" <> 'current'
            OR s."revisionHash" <> ${recomputed} OR s."actionHash" <> ${recomputed} THEN 'payload_tampered'
          WHEN s."requiresApproval" AND (s.approvals < s.quorum OR s.rejections > 0) THEN 'no_quorum'
          WHEN s."requesterApiKeyId" IS NOT NULL AND NOT ${apiKeyIsLiveSql(Prisma.sql`s."requesterApiKeyId"`, { lock: true })} THEN 'api_key_revoked'
          WHEN s."requesterUserId" IS NOT NULL AND NOT ${requesterMayActSql(Prisma.sql`s."tenantId"`, Prisma.sql`s."requesterUserId"`)} THEN 'requester_inactive'
          WHEN ${agentsPausedSql(Prisma.sql`s."tenantId"`, Prisma.sql`s."requesterApiKeyId"`, { lockKey: true })} THEN 'agents_paused'
          WHEN s."requestSnapshotHash" <> ${input.liveSnapshotHash} THEN 'state_changed'
        END AS refusal
      FROM subject s
    ),
    claim AS (
      UPDATE "Action" a SET status = 'executing', "consumedAt" = now(), "updatedAt" = now()
      FROM verdict v WHERE a.id = v.id AND v.refusal IS NULL
      RETURNING a.id, v."revisionId", v.revision
    ),
    execution AS (
      INSERT INTO "Execution" (id, "tenantId", "actionId", revision, "idempotencyKey", "claimedBy", "leaseExpiresAt")
      SELECT ${input.executionId}::uuid, ${input.tenantId}::uuid, c.id, c.revision, ${input.idempotencyKey}, ${input.claimedBy},
        now() + make_interval(secs => ${input.leaseSeconds})
      FROM claim c
    ),
    pre AS (
      INSERT INTO "Snapshot" (id, "tenantId", "actionId", "revisionId", phase, data, hash)
      SELECT gen_random_uuid(), ${input.tenantId}::uuid, c.id, c."revisionId", 'pre_execution',
        ${jsonParam(input.liveSnapshot)}::jsonb, ${input.liveSnapshotHash}
      -- A tool that rests on no state has nothing to keep.
      FROM claim c WHERE ${jsonParam(input.liveSnapshot)}::jsonb IS NOT NULL
    ),
    ${auditCte(input.started, { gate: "claim" })}
    SELECT v.refusal, v.status FROM verdict v`);
  if (!row) return { refusal: "not_found", status: null };
  return { refusal: row.refusal, status: row.status };
}
