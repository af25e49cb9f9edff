import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { requesterRolesCurrentSql } from "@/lib/db/statements/actions/requester-roles";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";
import { agentsPausedSql } from "@/lib/db/statements/tenant/agent-pause-rules";
import { assessedCurrentSql } from "@/lib/db/statements/actions/assessment-rules";
import { grantApprovalsCountSql } from "@/lib/db/statements/actions/approval-rules";
import { budgetTotalsSql, type BudgetRead } from "@/lib/db/statements/actions/budget-totals";

/** Everything one proposal writes: its audit event, the action, its first revision and the TOCTOU snapshot. */
export type ProposalRow = {
  actionId: string;
  revisionId: string;
  snapshotId: string;
  tenantId: string;
  /** The tenant's domains and policy version the proposal was assessed under. */
  domains: string[];
  policyVersion: number;
  event: AttestedAuditBody;
  taskId: string | null;
  /** The worker holding the task's lease, which proposes for it (with `taskId`). */
  taskLeaseOwner: string | null;
  requesterUserId: string | null;
  /**
   * A member requester's roles as the policy was told them (the write checks they still are,
   * requesterRolesCurrentSql); null with a member requester means "no longer an active member".
   */
  requesterRoles: string[] | null;
  requesterApiKeyId: string | null;
  requesterLabel: string;
  kind: string;
  tool: string;
  reason: string;
  stepKey: string | null;
  agentCallId: string | null;
  /** The Idempotency-Key an API key submitted it under, and the request it is bound to (or null). */
  submitKey: string | null;
  submitRequestHash: string | null;
  /** The untrusted text the proposal was assessed against; every later revision is assessed against it too. */
  untrustedValues: string[];
  status: "pending" | "approved" | "denied";
  requiresApproval: boolean;
  revision: number;
  payloadHash: string;
  hashAlgorithm: string;
  hashVersion: number;
  riskLevel: string;
  riskRank: number;
  quorum: number;
  eligibleRoles: string[];
  /** Seconds from the database's now(); null: the action never expires (denied). */
  ttlSeconds: number | null;
  /** Decided on proposal (allowed or denied), not by reviewers. */
  decidedNow: boolean;
  statusReason: string;
  args: JsonObject | null;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  policyDecision: JsonObject;
  riskTags: unknown[];
  preview: JsonObject;
  scanFindings: unknown[];
  createdByUserId: string | null;
  snapshot: JsonObject | null;
  snapshotHash: string;
  /**
   * A call the policy sends to review is written only if the tenant's standing grants are still at
   * this version (a grant made meanwhile is looked for again); null: not checked.
   */
  grantsVersion: number | null;
  /** Allowed by this standing grant, taken by this statement (`amount` of its total): written only if it is. */
  grant: ProposalGrant | null;
};

/** The grant a call is allowed by, and what it would spend (docs/DESIGN.md, "Standing grants"). */
export type ProposalGrant = {
  id: string;
  /** What the call adds to the grant's total (0 when it has no total). */
  amount: number;
  /** The rule that sent the call to review, which must be the grant's. */
  ruleId: string | null;
  /** The call's rule requires signed approvals: the grant's must have been. */
  signatureRequired: boolean;
};

/** What is left of a grant after the call it allowed (null: the grant has no such limit). */
export type GrantLeft = { id: string; callsLeft: number | null; totalLeft: number | null; expiresAt: Date };

/**
 * Written, or why nothing was: `stale_assessment` — the tenant's domains or policy changed since
 * the assessment; `api_key_revoked` — the requesting API key may no longer act; `submit_key_taken`
 * — the key already submitted an action under this Idempotency-Key (a retry, or a concurrent
 * duplicate that won); `agents_paused` — the tenant's agents, or the requesting key, are paused
 * (agent-pause-rules.ts); `requester_changed` — the member who requested it is no longer a member
 * with the roles the policy was told (a task proposes long after it read them), or is disabled;
 * `task_lease_lost` — a task's proposal from a worker that no longer holds the task's lease (another
 * took the task over); `call_taken` — the task already has an action for this tool call (a worker
 * that took the task over proposed it first).
 */
export type ProposalWritten =
  | { written: true; expiresAt: Date | null; grant: GrantLeft | null }
  | {
    written: false;
    refusal:
      | "stale_assessment" | "api_key_revoked" | "submit_key_taken" | "agents_paused" | "requester_changed" | "task_lease_lost" | "call_taken"
      | "grant_spent" | "grant_unfit";
  };

/**
 * Writes proposals, as many as are waiting (write-proposal.ts batches them), in one statement: the audit events, the actions,
 * their first revisions and snapshots. A proposal is written only if the tenant's domains and
 * policy are still those it was assessed under, its member requester (if any) still holds the roles
 * it was assessed with, and none while the tenant's agents or the
 * requesting key are paused (agent-pause-rules.ts), and one an API key requested only if the key may
 * still act (api-key-rules.ts), and one submitted under an Idempotency-Key only if the key has
 * not used it yet: the action's insert skips it on the unique index of (key, Idempotency-Key), so
 * of concurrent duplicates — in this statement or in others — exactly one is written. A task's
 * proposal is written only while the proposing worker holds the task's lease (its row share-locked
 * until the proposal commits, so no other worker claims the task meanwhile: the claim skips locked
 * tasks), and once per tool call: the insert skips a call the task already has an action for (the
 * unique index of task and call). A call allowed by a standing grant is written only if this
 * statement takes the grant (grantTakenSql). Its event,
 * revision and snapshot are written only with the action. The expiry comes from the database clock.
 */
export async function writeProposals(q: Queryable, rows: ProposalRow[]): Promise<ProposalWritten[]> {
  const written = await query<WrittenRow>(q, proposalStatement(rows, null));
  const byId = new Map(written.map((row) => [row.id, row]));
  return rows.map((row) => writtenOf(row, byId.get(row.actionId)));
}

/** The budgets a statement of budgeted proposals holds: what it reads, and the totals its rows were judged from. */
export type BudgetHold = { read: BudgetRead; judgedFrom: ReadonlyMap<string, string> };

/**
 * Written only if the budgets still stand where they were judged from: `moved` — a total changed
 * (another proposal spent, or a call released its share), so nothing was written, and `seen` holds
 * the totals as the statement read them under the locks, to judge the proposals again from.
 */
export type BudgetedStatement = { moved: false; written: ProposalWritten[] } | { moved: true; seen: Map<string, string> };

/**
 * Writes budgeted proposals (budgeted-proposals.ts) in one statement that holds their budgets:
 * first the budgets' locks and their totals (budget_totals, which reads them after the locks are
 * granted), then the grants the rows take (id order), then everything writeProposals checks and
 * writes — only if every total is the one the rows were judged from. The locks are held until the
 * statement commits, so no other proposal of these budgets is judged and written in between.
 */
export async function writeBudgetedProposals(q: Queryable, rows: ProposalRow[], hold: BudgetHold): Promise<BudgetedStatement> {
  const written = await query<WrittenRow & { budgetHeld: boolean; budgetSeen: Record<string, string> | null }>(q, proposalStatement(rows, hold));
  const held = written[0];
  if (held && !held.budgetHeld) return { moved: true, seen: new Map(Object.entries(held.budgetSeen ?? {})) };
  const byId = new Map(written.map((row) => [row.id, row]));
  return { moved: false, written: rows.map((row) => writtenOf(row, byId.get(row.actionId))) };
}

/**
 * The proposal statement; with `hold`, its budgets' CTEs come first and every lock the statement
 * takes after them waits on them (the order of docs/DESIGN.md, "Budgets", "Lock order").
 */
function proposalStatement(rows: ProposalRow[], hold: BudgetHold | null): Prisma.Sql {
  const { budget, afterBudget, budgetColumns } = hold === null ? { budget: Prisma.empty, afterBudget: Prisma.empty, budgetColumns: Prisma.empty } : budgetHoldSql(hold);
  return Prisma.sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows.map((row, ord) => ({ ...row, ord })))}::jsonb) AS x(
        ord int, "actionId" uuid, "revisionId" uuid, "snapshotId" uuid, "tenantId" uuid, domains text[], "policyVersion" int,
        event jsonb, "taskId" uuid, "taskLeaseOwner" text, "requesterUserId" uuid, "requesterRoles" text[], "requesterApiKeyId" uuid, "requesterLabel" text,
        kind "ActionKind", tool text, reason text, "stepKey" text, "agentCallId" text, "submitKey" text,
        "submitRequestHash" text, "untrustedValues" text[], status "ActionStatus",
        "requiresApproval" boolean, revision int, "payloadHash" text, "hashAlgorithm" text, "hashVersion" int,
        "riskLevel" "RiskLevel", "riskRank" int, quorum int, "eligibleRoles" "Role"[], "ttlSeconds" int, "decidedNow" boolean,
        "statusReason" text, args jsonb, code text, language text, "sandboxSpec" jsonb, "policyDecision" jsonb,
        "riskTags" jsonb, preview jsonb, "scanFindings" jsonb, "createdByUserId" uuid, snapshot jsonb, "snapshotHash" text,
        "grantsVersion" int, "grant" jsonb)
    ),
    ${budget}
    -- The tasks proposed for, share-locked in id order (the order a decision or the sweeper wakes
    -- them in), held by the worker that proposes.
    held_tasks AS MATERIALIZED (
      SELECT t.id, t."tenantId", t."leaseOwner" FROM "Task" t WHERE t.id IN (SELECT "taskId" FROM input) ${afterBudget} ORDER BY t.id FOR SHARE OF t
    ),
    checked AS (
      SELECT i.*,
        (i."requesterApiKeyId" IS NULL OR ${apiKeyIsLiveSql(Prisma.sql`i."requesterApiKeyId"`)}) AS key_live,
        ${agentsPausedSql(Prisma.sql`i."tenantId"`, Prisma.sql`i."requesterApiKeyId"`)} AS paused,
        ${assessedCurrentSql(Prisma.sql`i."tenantId"`, Prisma.sql`i.domains`, Prisma.sql`i."policyVersion"`, Prisma.sql`i."grantsVersion"`)} AS assessed_current,
        ${requesterRolesCurrentSql(Prisma.sql`i."tenantId"`, Prisma.sql`i."requesterUserId"`, Prisma.sql`i."requesterRoles"`)} AS requester_current,
        (i."taskId" IS NULL OR EXISTS (
          SELECT 1 FROM held_tasks t WHERE t.id = i."taskId" AND t."tenantId" = i."tenantId" AND t."leaseOwner" = i."taskLeaseOwner"
        )) AS task_held
      FROM input i
    ),
    current AS (SELECT * FROM checked WHERE key_live AND NOT paused AND assessed_current AND requester_current AND task_held ${afterBudget}),
    ${grantTakenSql()},
    a AS (
      INSERT INTO "Action" (id, "tenantId", "taskId", "requesterUserId", "requesterApiKeyId", "requesterLabel", kind, tool,
        reason, "stepKey", "agentCallId", "submitKey", "submitRequestHash", "untrustedValues", status, "requiresApproval", "currentRevision",
        "payloadHash", "riskLevel", "riskRank", quorum, "eligibleRoles", "expiresAt", "decidedAt", "statusReason")
      SELECT c."actionId", c."tenantId", c."taskId", c."requesterUserId", c."requesterApiKeyId", c."requesterLabel", c.kind,
        c.tool, c.reason, c."stepKey", c."agentCallId", c."submitKey", c."submitRequestHash", c."untrustedValues", c.status, c."requiresApproval",
        c.revision, c."payloadHash", c."riskLevel", c."riskRank", c.quorum, c."eligibleRoles",
        date_trunc('milliseconds', now()) + make_interval(secs => c."ttlSeconds"),
        CASE WHEN c."decidedNow" THEN now() END, c."statusReason"
      FROM current c
      WHERE c."grant" IS NULL OR c."actionId" IN (SELECT "actionId" FROM taken)
      ORDER BY c.ord
      -- Either unique index: (key, Idempotency-Key) or (task, tool call).
      ON CONFLICT DO NOTHING
      RETURNING id, "expiresAt"
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`current JOIN a ON a.id = current."actionId"`, Prisma.sql`current.event`, { order: Prisma.sql`current.ord` })}),
    r AS (
      INSERT INTO "ActionRevision" (id, "tenantId", "actionId", revision, args, code, language, "sandboxSpec", "policyVersion",
        "policyDecision", "requiresApproval", quorum, "eligibleRoles", "payloadHash", "hashAlgorithm", "hashVersion", "riskTags",
        "riskLevel", preview, "scanFindings", origin, "createdByUserId")
      SELECT c."revisionId", c."tenantId", c."actionId", c.revision, c.args, c.code, c.language, c."sandboxSpec",
        c."policyVersion", c."policyDecision", c."requiresApproval", c.quorum, c."eligibleRoles", c."payloadHash", c."hashAlgorithm",
        c."hashVersion", c."riskTags", c."riskLevel", c.preview, c."scanFindings", 'proposed', c."createdByUserId"
      FROM current c JOIN a ON a.id = c."actionId"
    ),
    s AS (
      INSERT INTO "Snapshot" (id, "tenantId", "actionId", "revisionId", phase, data, hash)
      SELECT c."snapshotId", c."tenantId", c."actionId", c."revisionId", 'request', c.snapshot, c."snapshotHash"
      FROM current c JOIN a ON a.id = c."actionId"
      WHERE c.snapshot IS NOT NULL
    )
    SELECT c."actionId" AS id, a.id IS NOT NULL AS written, a."expiresAt", c.key_live AS "keyLive", c.paused,
      c.assessed_current AS "assessedCurrent", c.requester_current AS "requesterCurrent", c.task_held AS "taskHeld", ${grantColumnsSql()}${budgetColumns}
    FROM checked c LEFT JOIN a ON a.id = c."actionId" LEFT JOIN taken ON taken."actionId" = c."actionId"`;
}

/**
 * A statement's budget hold: `budget` — the budgets' locks and totals (budget_totals), whether every
 * total is the one the rows were judged from, and the rows' grants locked after them (id order);
 * `afterBudget` — the condition that makes a later CTE wait on them (so its locks come after);
 * `budgetColumns` — whether the budgets held, and if not, the totals seen.
 */
function budgetHoldSql(hold: BudgetHold): { budget: Prisma.Sql; afterBudget: Prisma.Sql; budgetColumns: Prisma.Sql } {
  return {
    budget: Prisma.sql`
    budget AS MATERIALIZED (SELECT b.id, b.total FROM ${budgetTotalsSql(hold.read)} b),
    budget_held AS MATERIALIZED (
      SELECT NOT EXISTS (
        SELECT 1 FROM budget b FULL JOIN jsonb_each_text(${JSON.stringify(Object.fromEntries(hold.judgedFrom))}::jsonb) e ON e.key = b.id
        WHERE b.total IS DISTINCT FROM e.value::numeric
      ) AS held
    ),
    held_grants AS MATERIALIZED (
      SELECT g.id FROM "Grant" g
      WHERE g.id IN (SELECT ("grant"->>'id')::uuid FROM input) AND (SELECT held FROM budget_held)
      ORDER BY g.id FOR UPDATE OF g
    ),`,
    afterBudget: Prisma.sql`AND (SELECT held FROM budget_held) AND (SELECT count(*) FROM held_grants) >= 0`,
    budgetColumns: Prisma.sql`,
      (SELECT held FROM budget_held) AS "budgetHeld",
      CASE WHEN NOT (SELECT held FROM budget_held) THEN (SELECT jsonb_object_agg(b.id, b.total::text) FROM budget b) END AS "budgetSeen"`,
  };
}

type WrittenRow = {
  id: string; written: boolean; expiresAt: Date | null; keyLive: boolean; paused: boolean; assessedCurrent: boolean; requesterCurrent: boolean; taskHeld: boolean;
  grantId: string | null; callsLeft: number | null; totalLeft: string | null; grantExpiresAt: Date | null; grantSpent: boolean | null;
};

/** What the statement did with one proposal: written, or the first reason it was not. */
function writtenOf(row: ProposalRow, found: WrittenRow | undefined): ProposalWritten {
  if (found?.written) return { written: true, expiresAt: found.expiresAt, grant: grantLeftOf(found) };
  if (found && !found.keyLive) return { written: false, refusal: "api_key_revoked" };
  if (found?.paused) return { written: false, refusal: "agents_paused" };
  if (found && !found.requesterCurrent) return { written: false, refusal: "requester_changed" };
  if (found && !found.taskHeld) return { written: false, refusal: "task_lease_lost" };
  if (found?.assessedCurrent && row.grant !== null && found.grantId === null) {
    return { written: false, refusal: found.grantSpent === false ? "grant_unfit" : "grant_spent" };
  }
  if (found?.assessedCurrent && row.submitKey !== null) return { written: false, refusal: "submit_key_taken" };
  if (found?.assessedCurrent && row.taskId !== null && row.agentCallId !== null) return { written: false, refusal: "call_taken" };
  return { written: false, refusal: "stale_assessment" };
}

/** The grant each row took and what is left of it; for one not taken, whether the grant can take no call at all any more (as this statement sees it). */
function grantColumnsSql(): Prisma.Sql {
  return Prisma.sql`taken.id AS "grantId", taken."callsLeft", taken."totalLeft"::text AS "totalLeft", taken."expiresAt" AS "grantExpiresAt",
      (SELECT NOT (g.status = 'active' AND g."expiresAt" > statement_timestamp() AND (g."maxCalls" IS NULL OR g."usedCalls" < g."maxCalls")
          AND (g."maxTotal" IS NULL OR g."usedTotal" < g."maxTotal"))
        FROM "Grant" g WHERE g.id = (c."grant"->>'id')::uuid) AS "grantSpent"`;
}

function grantLeftOf(row: { grantId: string | null; callsLeft: number | null; totalLeft: string | null; grantExpiresAt: Date | null }): GrantLeft | null {
  if (row.grantId === null || row.grantExpiresAt === null) return null;
  return { id: row.grantId, callsLeft: row.callsLeft, totalLeft: row.totalLeft === null ? null : Number(row.totalLeft), expiresAt: row.grantExpiresAt };
}

/**
 * `taken`: the standing grants this statement takes, one call each (a batch never holds two calls of
 * one grant: the caller writes a granted call on its own). The UPDATE is the guarantee: it waits for
 * a concurrent taker's commit and re-checks its conditions on the row it left, so the grant's calls
 * and total are never overspent. The grant must be active and unexpired (database clock), of the
 * call's tenant, tool, scope (key, else task), policy version and rule, cover the call's risk,
 * have been signed where the call's rule requires signatures, and its approvals must still count
 * (a member who lost the standing to decide, or a removed passkey, ends it as it would an approval). docs/DESIGN.md, "Standing grants".
 */
function grantTakenSql(): Prisma.Sql {
  return Prisma.sql`taken AS (
      UPDATE "Grant" g SET "usedCalls" = g."usedCalls" + 1, "usedTotal" = g."usedTotal" + (c."grant"->>'amount')::bigint, "lastUsedAt" = now()
      FROM current c
      WHERE c."grant" IS NOT NULL AND g.id = (c."grant"->>'id')::uuid AND g."tenantId" = c."tenantId" AND g.tool = c.tool
        AND g.status = 'active' AND g."expiresAt" > statement_timestamp()
        AND (CASE WHEN g."apiKeyId" IS NOT NULL THEN g."apiKeyId" = c."requesterApiKeyId" ELSE g."taskId" = c."taskId" END)
        AND g."policyVersion" = c."policyVersion" AND g."ruleId" IS NOT DISTINCT FROM c."grant"->>'ruleId'
        AND c."riskRank" <= g."maxRiskRank" AND (g.signed OR NOT (c."grant"->>'signatureRequired')::boolean)
        AND (g."maxCalls" IS NULL OR g."usedCalls" < g."maxCalls")
        AND (g."maxTotal" IS NULL OR g."usedTotal" + (c."grant"->>'amount')::bigint <= g."maxTotal")
        AND ${grantApprovalsCountSql(Prisma.sql`g`)}
      RETURNING g.id, c."actionId", g."maxCalls" - g."usedCalls" AS "callsLeft", g."maxTotal" - g."usedTotal" AS "totalLeft", g."expiresAt"
    )`;
}
