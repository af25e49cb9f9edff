import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type DecisionLatency = {
  decisionId: string; actionId: string; tool: string; revision: number; requestedAt: Date; decidedAt: Date; seconds: number;
  reviewer: string; verdict: string; void: boolean; note: string | null;
};

/** Where a page of votes ends: the next page begins after it. */
export type DecisionCursor = { decidedAt: Date; decisionId: string };

/**
 * One page of the votes cast in the tenant in [from, to), oldest first after `after` (from the
 * first when null), at most `limit`: who cast each on which revision and how long after the
 * request. The (tenant, time, id) index serves each page from where the last ended.
 */
export async function readDecisionLatencies(
  q: Queryable,
  input: { tenantId: string; from: Date; to: Date; after: DecisionCursor | null; limit: number },
): Promise<DecisionLatency[]> {
  const after = input.after
    ? Prisma.sql`AND (d."createdAt", d.id) > (${input.after.decidedAt}, ${input.after.decisionId}::uuid)`
    : Prisma.empty;
  return query<DecisionLatency>(q, Prisma.sql`
    SELECT d.id AS "decisionId", d."actionId", a.tool, r.revision, a."createdAt" AS "requestedAt", d."createdAt" AS "decidedAt",
      EXTRACT(EPOCH FROM (d."createdAt" - a."createdAt"))::float8 AS seconds, u.email AS reviewer, d.verdict::text AS verdict, d.void, d.note
    FROM "Decision" d JOIN "Action" a ON a.id = d."actionId" JOIN "ActionRevision" r ON r.id = d."revisionId" JOIN "User" u ON u.id = d."reviewerId"
    WHERE d."tenantId" = ${input.tenantId}::uuid AND d."createdAt" >= ${input.from} AND d."createdAt" < ${input.to} ${after}
    ORDER BY d."createdAt", d.id
    LIMIT ${input.limit}`, { prepare: false });
}
