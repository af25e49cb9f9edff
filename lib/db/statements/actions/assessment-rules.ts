import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether an assessment made under the tenant's `domains` and policy `policyVersion` still holds:
 * the tenant's domains are those, and no newer policy has been saved. The one definition the
 * statements that write an assessed revision apply (write-proposals.ts for the first,
 * write-next-revision.ts for the next), so a policy saved while a payload was being assessed is
 * never bypassed by writing the assessment made under the old one. With `grantsVersion` (a call that
 * would wait for review), also the tenant's standing grants: one made meanwhile is looked for again.
 */
export function assessedCurrentSql(tenantId: Sql, domains: Sql, policyVersion: Sql, grantsVersion: Sql = Prisma.sql`NULL::int`): Sql {
  return Prisma.sql`(EXISTS (SELECT 1 FROM "Tenant" t WHERE t.id = ${tenantId} AND t.domains = ${domains}
      AND (${grantsVersion} IS NULL OR t."grantsVersion" = ${grantsVersion}))
    AND NOT EXISTS (SELECT 1 FROM "ToolPolicy" p WHERE p."tenantId" = ${tenantId} AND p.version > ${policyVersion}))`;
}
