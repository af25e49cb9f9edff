import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { decisionStillCountsSql } from "@/lib/db/statements/approval-rules";

/**
 * The ids of the decisions on these actions' current revisions that count now, by the rule the
 * vote and the claim count with (approval-rules.ts): what the console shows as counting, so it
 * never says approved by someone whose approval a claim would ignore.
 */
export async function readCountingDecisions(q: Queryable, input: { tenantId: string; actionIds: string[] }): Promise<Set<string>> {
  if (input.actionIds.length === 0) return new Set();
  const rows = await query<{ id: string }>(q, Prisma.sql`
    SELECT counted.id FROM "Action" a
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    -- Per revision, by its index: the page's few rows, never the whole table.
    CROSS JOIN LATERAL (
      SELECT d.id FROM "Decision" d
      WHERE d."revisionId" = r.id
        AND ${decisionStillCountsSql(Prisma.sql`r."payloadHash"`)}
      OFFSET 0 -- kept a per-row subquery: flattened into a join, the planner may read the whole index
    ) counted
    WHERE a.id = ANY(${input.actionIds}::uuid[]) AND a."tenantId" = ${input.tenantId}::uuid`);
  return new Set(rows.map((row) => row.id));
}
