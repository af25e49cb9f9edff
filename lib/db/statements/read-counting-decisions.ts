import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { decisionCountsSql } from "@/lib/db/statements/approval-rules";

/**
 * The ids of the decisions on these actions' current revisions that count now, by the rule the
 * vote and the claim count with (approval-rules.ts): what the console shows as counting, so it
 * never says approved by someone whose approval a claim would ignore.
 */
export async function readCountingDecisions(q: Queryable, input: { tenantId: string; actionIds: string[] }): Promise<Set<string>> {
  if (input.actionIds.length === 0) return new Set();
  const rows = await query<{ id: string }>(q, Prisma.sql`
    SELECT d.id FROM "Action" a
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    JOIN "Decision" d ON d."revisionId" = r.id
    WHERE a.id = ANY(${input.actionIds}::uuid[]) AND a."tenantId" = ${input.tenantId}::uuid
      AND (${decisionCountsSql("approve", Prisma.sql`r."payloadHash"`)} OR ${decisionCountsSql("reject", Prisma.sql`r."payloadHash"`)})`);
  return new Set(rows.map((row) => row.id));
}
