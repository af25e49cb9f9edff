import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type BulkCandidateRow = { id: string; riskLevel: string; stepKey: string | null; riskTags: unknown };

/** The tenant's actions among `ids`, with what a bulk decision is judged on (the current revision's risk tags). */
export function readBulkCandidates(q: Queryable, input: { tenantId: string; ids: string[] }): Promise<BulkCandidateRow[]> {
  return query<BulkCandidateRow>(q, Prisma.sql`
    SELECT a.id, a."riskLevel"::text AS "riskLevel", a."stepKey", r."riskTags"
    FROM "Action" a LEFT JOIN "ActionRevision" r ON r."actionId" = a.id AND r.status = 'current'
    WHERE a."tenantId" = ${input.tenantId}::uuid AND a.id = ANY(${input.ids}::uuid[])`);
}
