import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type DecisionLatency = {
  decisionId: string; actionId: string; tool: string; revision: number; requestedAt: Date; decidedAt: Date; seconds: number;
  reviewer: string; verdict: string; void: boolean; note: string | null;
};

/**
 * Every vote cast in the tenant in [from, to), oldest first, with how long after the request it
 * came, who cast it and on which revision: who verified which output, when.
 */
export async function readDecisionLatencies(q: Queryable, input: { tenantId: string; from: Date; to: Date }): Promise<DecisionLatency[]> {
  return query<DecisionLatency>(q, Prisma.sql`
    SELECT d.id AS "decisionId", d."actionId", a.tool, r.revision, a."createdAt" AS "requestedAt", d."createdAt" AS "decidedAt",
      EXTRACT(EPOCH FROM (d."createdAt" - a."createdAt"))::float8 AS seconds, u.email AS reviewer, d.verdict::text AS verdict, d.void, d.note
    FROM "Decision" d JOIN "Action" a ON a.id = d."actionId" JOIN "ActionRevision" r ON r.id = d."revisionId" JOIN "User" u ON u.id = d."reviewerId"
    WHERE d."tenantId" = ${input.tenantId}::uuid AND d."createdAt" >= ${input.from} AND d."createdAt" < ${input.to}
    ORDER BY d."createdAt", d.id`, { prepare: false });
}
