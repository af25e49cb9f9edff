import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether an assessment made under the tenant's `domains` and policy `policyVersion` still holds:
 * the tenant's domains are those, and no newer policy has been saved. The one definition the
 * statements that write an assessed revision apply (write-proposals.ts for the first,
 * write-next-revision.ts for the next), so a policy saved while a payload was being assessed is
 * never bypassed by writing the assessment made under the old one.
 */
export function assessedCurrentSql(tenantId: Sql, domains: Sql, policyVersion: Sql): Sql {
  return Prisma.sql`(EXISTS (SELECT 1 FROM "Tenant" t WHERE t.id = ${tenantId} AND t.domains = ${domains})
    AND NOT EXISTS (SELECT 1 FROM "ToolPolicy" p WHERE p."tenantId" = ${tenantId} AND p.version > ${policyVersion}))`;
}
