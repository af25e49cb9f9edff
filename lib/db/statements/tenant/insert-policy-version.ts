import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type PolicyVersionInsert = { saved: true } | { saved: false; refusal: "not_admin" | "stale_base_version" };

/**
 * Version `baseVersion + 1` of the tenant's policy (rows are never updated) with its
 * `policy.saved` event, in one statement: only by an admin now (admin-rules.ts), and only while
 * `baseVersion` (0: none) is the newest, so of two saves from one version one wins (the unique
 * (tenant, version) catches a race past the check). The refusal names the rule.
 */
export async function insertPolicyVersion(
  q: Queryable,
  input: { id: string; tenantId: string; baseVersion: number; document: JsonObject; comment: string | null; createdById: string; saved: AttestedAuditBody },
): Promise<PolicyVersionInsert> {
  const [row] = await query<{ admin: boolean; saved: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.createdById}::uuid`)} AS ok),
    saved AS (
      INSERT INTO "ToolPolicy" (id, "tenantId", version, document, comment, "createdById", "createdAt")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.baseVersion + 1}::int, ${JSON.stringify(input.document)}::jsonb, ${input.comment},
        ${input.createdById}::uuid, now()
      WHERE (SELECT ok FROM admin)
        AND COALESCE((SELECT max(version) FROM "ToolPolicy" WHERE "tenantId" = ${input.tenantId}::uuid), 0) = ${input.baseVersion}::int
      ON CONFLICT ("tenantId", version) DO NOTHING
      RETURNING id
    ),
    ${auditCte(input.saved, { gate: "saved" })}
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM saved) AS saved`);
  if (row.saved) return { saved: true };
  return { saved: false, refusal: row.admin ? "stale_base_version" : "not_admin" };
}
