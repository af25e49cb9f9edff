import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** A tenant's own email domains and the id and version of its policy in force (the highest), in one read. */
export async function readTenantPolicy(
  q: Queryable,
  tenantId: string,
): Promise<{ id: string; domains: string[]; policyId: string | null; version: number | null } | null> {
  const [row] = await query<{ id: string; domains: string[]; policyId: string | null; version: number | null }>(q, Prisma.sql`
    SELECT t.id, t.domains, p.id AS "policyId", p.version
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
