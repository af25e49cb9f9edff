import { Prisma } from "@/lib/generated/prisma/client";
import type { Verdict } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";
import { decisionStillCountsSql } from "@/lib/db/statements/actions/approval-rules";

export type CountingVote = { id: string; revisionId: string; reviewerId: string; verdict: Verdict };

/**
 * The decisions on these actions' current revisions that count now, by the rule the vote and the
 * claim count with (approval-rules.ts): what the console shows as counting, so it never says
 * approved by someone whose approval a claim would ignore. One statement gives both who voted and
 * whether it counts, so the review queue never shows a vote beside a count that has not seen it.
 */
export async function readCountingVotes(q: Queryable, input: { tenantId: string; actionIds: string[] }): Promise<CountingVote[]> {
  if (input.actionIds.length === 0) return [];
  return query<CountingVote>(q, Prisma.sql`
    SELECT counted.id, counted."revisionId", counted."reviewerId", counted.verdict::text AS verdict FROM "Action" a
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    -- Per revision, by its index: the page's few rows, never the whole table.
    CROSS JOIN LATERAL (
      SELECT d.id, d."revisionId", d."reviewerId", d.verdict FROM "Decision" d
      WHERE d."revisionId" = r.id
        AND ${decisionStillCountsSql(Prisma.sql`r."payloadHash"`)}
      OFFSET 0 -- kept a per-row subquery: flattened into a join, the planner may read the whole index
    ) counted
    WHERE a.id = ANY(${input.actionIds}::uuid[]) AND a."tenantId" = ${input.tenantId}::uuid`);
}

/** The ids of the decisions `readCountingVotes` finds. */
export async function readCountingDecisions(q: Queryable, input: { tenantId: string; actionIds: string[] }): Promise<Set<string>> {
  return new Set((await readCountingVotes(q, input)).map((vote) => vote.id));
}
