import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * An action's current revision as the policy read it, with its JSON columns as text: parsing them
 * grows with the arguments and snapshots (up to 200 actions of up to the body limit each), so that
 * is left to the compute pool (lib/policy/recorded-policy-inputs.ts), never done on the request thread.
 */
export type RecordedRevision = {
  actionId: string;
  tool: string;
  kind: "tool" | "code";
  createdAt: Date;
  revision: number;
  argsText: string | null;
  code: string | null;
  language: string | null;
  riskLevel: string;
  riskTagsText: string;
  /** The revision's first request-time snapshot, as text; null when it has none. */
  snapshotText: string | null;
  /** The requesting member's roles now (none for an API key, or a member no longer active). */
  requesterRoles: string[];
  summary: string;
  /** Who asked, for the budgets a replay reads (the key, else the member) and the task, if any. */
  requesterApiKeyId: string | null;
  requesterUserId: string | null;
  taskId: string | null;
  /** What was decided then, under the version then in force. */
  recorded: { effect: string; ruleId: string | null; policyVersion: number };
};

/**
 * The tenant's most recent actions (or the one named), newest first, at most `limit`: each one's
 * current revision with what its policy decision read. The requesting member's roles are those of
 * now, as proposeAction and createNextRevision give every revision (readRequesterRoles).
 */
export async function readRecordedRevisions(q: Queryable, input: { tenantId: string; limit: number; actionId?: string }): Promise<RecordedRevision[]> {
  const one = input.actionId ? Prisma.sql`AND a.id = ${input.actionId}::uuid` : Prisma.empty;
  const rows = await query<Omit<RecordedRevision, "recorded"> & { effect: string; ruleId: string | null; policyVersion: number }>(q, Prisma.sql`
    SELECT a.id AS "actionId", a.tool, a.kind::text AS kind, a."createdAt", r.revision, r.args::text AS "argsText", r.code, r.language,
      r."riskLevel"::text AS "riskLevel", r."riskTags"::text AS "riskTagsText",
      (SELECT s.data::text FROM "Snapshot" s WHERE s."revisionId" = r.id AND s.phase = 'request' ORDER BY s."takenAt" LIMIT 1) AS "snapshotText",
      COALESCE((
        SELECT m.roles::text[] FROM "Membership" m JOIN "User" u ON u.id = m."userId" AND u."disabledAt" IS NULL
        WHERE m."tenantId" = a."tenantId" AND m."userId" = a."requesterUserId"
      ), '{}') AS "requesterRoles",
      COALESCE(r.preview->>'summary', a.tool) AS summary,
      a."requesterApiKeyId", a."requesterUserId", a."taskId",
      COALESCE(r."policyDecision"->>'effect', 'unknown') AS effect,
      CASE WHEN jsonb_typeof(r."policyDecision"->'ruleId') = 'string' THEN r."policyDecision"->>'ruleId' END AS "ruleId",
      r."policyVersion"
    FROM "Action" a
    CROSS JOIN LATERAL (
      SELECT * FROM "ActionRevision" r WHERE r."actionId" = a.id ORDER BY r.revision DESC LIMIT 1
    ) r
    WHERE a."tenantId" = ${input.tenantId}::uuid ${one}
    ORDER BY a."createdAt" DESC, a.id DESC
    LIMIT ${Math.max(1, Math.min(input.limit, 500))}`);
  return rows.map(({ effect, ruleId, policyVersion, ...row }) => ({ ...row, recorded: { effect, ruleId, policyVersion } }));
}
