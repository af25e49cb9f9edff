import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** A standing grant in force, as the proposal path looks for one (the proposal's statement re-checks it). */
export type ActiveGrant = {
  id: string;
  tool: string;
  apiKeyId: string | null;
  taskId: string | null;
  policyVersion: number;
  ruleId: string | null;
  constraint: string;
  totalArgument: string | null;
  expiresAt: string;
};

type TenantPolicyRow = {
  id: string; domains: string[]; policyId: string | null; version: number | null; grantsVersion: number; grants: ActiveGrant[];
};

/**
 * A tenant's own email domains, the id and version of its policy in force (the highest), and its
 * standing grants in force with their version, in one read.
 */
export async function readTenantPolicy(q: Queryable, tenantId: string): Promise<TenantPolicyRow | null> {
  const [row] = await query<TenantPolicyRow>(q, Prisma.sql`
    SELECT t.id, t.domains, p.id AS "policyId", p.version, t."grantsVersion",
      COALESCE((SELECT jsonb_agg(jsonb_build_object('id', g.id, 'tool', g.tool, 'apiKeyId', g."apiKeyId", 'taskId', g."taskId",
          'policyVersion', g."policyVersion", 'ruleId', g."ruleId", 'constraint', g."constraint", 'totalArgument', g."totalArgument",
          'expiresAt', g."expiresAt") ORDER BY g."createdAt")
        FROM "Grant" g WHERE g."tenantId" = t.id AND g.status = 'active' AND g."expiresAt" > now()
          AND (g."maxCalls" IS NULL OR g."usedCalls" < g."maxCalls") AND (g."maxTotal" IS NULL OR g."usedTotal" < g."maxTotal")), '[]'::jsonb) AS grants
    FROM "Tenant" t
    LEFT JOIN LATERAL (SELECT id, version FROM "ToolPolicy" WHERE "tenantId" = t.id ORDER BY version DESC LIMIT 1) p ON true
    WHERE t.id = ${tenantId}::uuid`);
  return row ?? null;
}

/** One stored policy version's document (policy rows are immutable). */
export async function readPolicyDocument(q: Queryable, policyId: string): Promise<unknown> {
  const [row] = await query<{ document: unknown }>(q, Prisma.sql`SELECT document FROM "ToolPolicy" WHERE id = ${policyId}::uuid`);
  return row?.document ?? null;
}
