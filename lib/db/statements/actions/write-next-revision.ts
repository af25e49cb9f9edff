import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { ActionStatus, RiskLevel, Role } from "@/lib/generated/prisma/enums";
import { jsonParam, query, type SqlClient } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";
import { assessedCurrentSql } from "@/lib/db/statements/actions/assessment-rules";
import { eligibleReviewerCountSql } from "@/lib/db/statements/actions/approval-rules";
import { requesterRolesCurrentSql } from "@/lib/db/statements/actions/requester-roles";

export type NextRevisionRow = {
  tenantId: string;
  actionId: string;
  /** The revision this one replaces: nothing is written unless it is still current. */
  fromRevision: number;
  revisionId: string;
  revision: number;
  args: JsonObject | null;
  code: string | null;
  language: string | null;
  sandboxSpec: JsonObject | null;
  /** The requesting member (null: an API key) and the roles the revision was assessed with (null: no longer a member): nothing is written if they changed. */
  requesterUserId: string | null;
  requesterRoles: string[] | null;
  /** The tenant's domains and policy version the revision was assessed under: nothing is written if either changed. */
  domains: string[];
  policyVersion: number;
  policyDecision: JsonObject;
  requiresApproval: boolean;
  quorum: number;
  eligibleRoles: Role[];
  payloadHash: string;
  hashAlgorithm: string;
  hashVersion: number;
  riskTags: unknown[];
  riskLevel: RiskLevel;
  riskRank: number;
  preview: JsonObject;
  scanFindings: unknown[];
  diff: JsonObject;
  origin: string;
  createdByUserId: string | null;
  snapshot: JsonObject | null;
  snapshotHash: string;
  status: Extract<ActionStatus, "pending" | "approved" | "denied">;
  /** Seconds from the database's now(); null: the revision never expires (denied). */
  ttlSeconds: number | null;
  statusReason: string;
  /** Written only while revision n's window is open, by the clock when this statement starts (the transaction's may be older). */
  whileOpen: boolean;
  /** Audit events, in order (e.g. action.invalidated, then action.revised). */
  events: AttestedAuditBody[];
  /** Wake the action's task (the new revision was decided by policy, or the old one was invalidated). */
  wake: boolean;
};

/**
 * Written, or why nothing was: `stale_revision` — revision n is no longer current;
 * `stale_assessment` — the tenant's domains or policy changed since the revision was assessed
 * (assessment-rules.ts); `requester_changed` — so did the requesting member's roles; `expired` —
 * `whileOpen` and revision n's window has closed; `too_few_reviewers` — a person's revision that
 * needs approval would leave fewer members who may decide it than its quorum (`reviewers`).
 */
export type NextRevisionWritten =
  | { written: true; expiresAt: Date | null }
  | { written: false; refusal: "stale_revision" | "stale_assessment" | "requester_changed" | "expired" }
  | { written: false; refusal: "too_few_reviewers"; reviewers: number };

/**
 * Revision n+1 of an action, in one statement: revision n superseded and its votes void, the new
 * revision with its request snapshot, the action pointed at it (new hash, status, expiry from the
 * database clock, unconsumed), the audit events and the task's wake-up — only if revision n is
 * still current and the assessment still holds (the tenant's policy and domains, the requester's roles)
 * and, for a revision a person wrote, enough others may decide it (its author may not): else the
 * edit would strand the action. Run it in a transaction that holds `lockAction`.
 */
export async function writeNextRevision(tx: SqlClient, row: NextRevisionRow): Promise<NextRevisionWritten> {
  const [result] = await query<{ assessedCurrent: boolean; requesterCurrent: boolean; open: boolean; reviewers: number | null; written: boolean; expiresAt: Date | null }>(tx, Prisma.sql`
    WITH counted AS (
      -- Who could decide the new revision (its author excluded): only a person's revision that needs approval is counted.
      SELECT ${eligibleReviewerCountSql()} AS reviewers
      FROM "Action" a CROSS JOIN (SELECT ${row.eligibleRoles}::"Role"[] AS "eligibleRoles", ${row.createdByUserId}::uuid AS "createdByUserId") r
      WHERE a.id = ${row.actionId}::uuid AND a."tenantId" = ${row.tenantId}::uuid AND ${row.requiresApproval} AND ${row.createdByUserId}::uuid IS NOT NULL
    ),
    checked AS (
      SELECT (SELECT reviewers FROM counted) AS reviewers, ${assessedCurrentSql(Prisma.sql`${row.tenantId}::uuid`, Prisma.sql`${row.domains}::text[]`, Prisma.sql`${row.policyVersion}::int`)} AS assessed,
        ${requesterRolesCurrentSql(Prisma.sql`${row.tenantId}::uuid`, Prisma.sql`${row.requesterUserId}::uuid`, Prisma.sql`${row.requesterRoles}::text[]`)} AS requester,
        (NOT ${row.whileOpen} OR EXISTS (SELECT 1 FROM "Action" a WHERE a.id = ${row.actionId}::uuid AND a."tenantId" = ${row.tenantId}::uuid
          AND a."expiresAt" > statement_timestamp())) AS open
    ),
    superseded AS (
      UPDATE "ActionRevision" SET status = 'superseded'
      WHERE "actionId" = ${row.actionId}::uuid AND "tenantId" = ${row.tenantId}::uuid AND revision = ${row.fromRevision} AND status = 'current'
        AND (SELECT assessed AND requester AND open AND (reviewers IS NULL OR reviewers >= ${row.quorum}) FROM checked)
      RETURNING id
    ),
    voided AS (
      UPDATE "Decision" SET void = true WHERE "revisionId" IN (SELECT id FROM superseded) AND NOT void
    ),
    moved AS (
      UPDATE "Action" SET "currentRevision" = ${row.revision}, "payloadHash" = ${row.payloadHash}, status = ${row.status}::"ActionStatus",
        "requiresApproval" = ${row.requiresApproval}, "riskLevel" = ${row.riskLevel}::"RiskLevel", "riskRank" = ${row.riskRank},
        quorum = ${row.quorum}, "eligibleRoles" = ${row.eligibleRoles}::"Role"[],
        "expiresAt" = CASE WHEN ${row.ttlSeconds}::int IS NULL THEN NULL ELSE date_trunc('milliseconds', now()) + make_interval(secs => ${row.ttlSeconds}::int) END,
        "consumedAt" = NULL, "decidedAt" = CASE WHEN ${row.requiresApproval} THEN NULL ELSE now() END,
        "statusReason" = ${row.statusReason}, "updatedAt" = now()
      FROM superseded
      WHERE "Action".id = ${row.actionId}::uuid AND "Action"."currentRevision" = ${row.fromRevision}
      RETURNING "Action".id, "Action"."taskId", "Action"."expiresAt"
    ),
    created AS (
      INSERT INTO "ActionRevision" (id, "tenantId", "actionId", revision, args, code, language, "sandboxSpec", "policyVersion",
        "policyDecision", "requiresApproval", quorum, "eligibleRoles", "payloadHash", "hashAlgorithm", "hashVersion", "riskTags",
        "riskLevel", preview, "scanFindings", diff, origin, "createdByUserId")
      SELECT ${row.revisionId}::uuid, ${row.tenantId}::uuid, m.id, ${row.revision}, ${jsonParam(row.args)}::jsonb, ${row.code}, ${row.language},
        ${jsonParam(row.sandboxSpec)}::jsonb, ${row.policyVersion}, ${JSON.stringify(row.policyDecision)}::jsonb, ${row.requiresApproval},
        ${row.quorum}, ${row.eligibleRoles}::"Role"[], ${row.payloadHash}, ${row.hashAlgorithm}, ${row.hashVersion},
        ${JSON.stringify(row.riskTags)}::jsonb, ${row.riskLevel}::"RiskLevel", ${JSON.stringify(row.preview)}::jsonb,
        ${JSON.stringify(row.scanFindings)}::jsonb, ${JSON.stringify(row.diff)}::jsonb, ${row.origin}, ${row.createdByUserId}::uuid
      FROM moved m
      RETURNING id
    ),
    snap AS (
      INSERT INTO "Snapshot" (id, "tenantId", "actionId", "revisionId", phase, data, hash)
      SELECT gen_random_uuid(), ${row.tenantId}::uuid, ${row.actionId}::uuid, c.id, 'request', ${jsonParam(row.snapshot)}::jsonb, ${row.snapshotHash}
      FROM created c WHERE ${jsonParam(row.snapshot)}::jsonb IS NOT NULL
    ),
    events AS (
      SELECT e.event, e.ord FROM jsonb_array_elements(${JSON.stringify(row.events)}::jsonb) WITH ORDINALITY AS e(event, ord), moved
    ),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`, { order: Prisma.sql`events.ord` })}),
    wake AS (${wakeTaskSql(Prisma.sql`SELECT "taskId" FROM moved`, Prisma.sql`${row.wake}`)})
    SELECT c.assessed AS "assessedCurrent", c.requester AS "requesterCurrent", c.open, c.reviewers, m.id IS NOT NULL AS written, m."expiresAt" FROM checked c LEFT JOIN moved m ON true`);
  if (result.written) return { written: true, expiresAt: result.expiresAt };
  if (!result.open) return { written: false, refusal: "expired" };
  if (!result.assessedCurrent) return { written: false, refusal: "stale_assessment" };
  if (!result.requesterCurrent) return { written: false, refusal: "requester_changed" };
  if (result.reviewers !== null && result.reviewers < row.quorum) return { written: false, refusal: "too_few_reviewers", reviewers: result.reviewers };
  return { written: false, refusal: "stale_revision" };
}
