import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type ReviewerSignalRow = {
  reviewerId: string;
  /** Null when the reviewer is no longer a member of this tenant. */
  email: string | null;
  decisions: number;
  approvals: number;
  /** Median time from the revision's request to this reviewer's decision. */
  medianLatencyMs: number | null;
  /** Median time on screen before deciding, over decisions that reported it. */
  medianViewedMs: number | null;
  viewedDecisions: number;
};

/**
 * Per reviewer, in one tenant, over decisions since `since`: how many, how many approvals, and the
 * medians of request→decision latency and of time on screen — automation-bias signals (a
 * reviewer who approves everything within seconds). One decision per reviewer and revision: a
 * vote given again because the first stopped counting (its passkey removed) is not a second
 * decision. Its verdict is their last (what they stand by, approve or reject); its latency and time
 * on screen are their first vote's (how fast they first judged it), among the votes since `since`.
 */
export async function readReviewerSignals(q: Queryable, input: { tenantId: string; since: Date }): Promise<ReviewerSignalRow[]> {
  return query<ReviewerSignalRow>(q, Prisma.sql`
    SELECT d."reviewerId",
      (SELECT u.email FROM "User" u JOIN "Membership" m ON m."userId" = u.id AND m."tenantId" = ${input.tenantId}::uuid WHERE u.id = d."reviewerId") AS email,
      count(*)::int AS decisions,
      count(*) FILTER (WHERE d.verdict = 'approve')::int AS approvals,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d."createdAt" - r."createdAt") * 1000)::float8 AS "medianLatencyMs",
      percentile_cont(0.5) WITHIN GROUP (ORDER BY d."viewedMs")::float8 AS "medianViewedMs",
      count(d."viewedMs")::int AS "viewedDecisions"
    FROM (
      SELECT DISTINCT ON (v."revisionId", v."reviewerId") v."tenantId", v."revisionId", v."reviewerId", v.verdict,
        first_value(v."createdAt") OVER votes AS "createdAt", first_value(v."viewedMs") OVER votes AS "viewedMs"
      FROM "Decision" v
      WHERE v."tenantId" = ${input.tenantId}::uuid AND v."createdAt" >= ${input.since}
      WINDOW votes AS (PARTITION BY v."revisionId", v."reviewerId" ORDER BY v."createdAt", v.id)
      ORDER BY v."revisionId", v."reviewerId", v."createdAt" DESC, v.id DESC
    ) d JOIN "ActionRevision" r ON r.id = d."revisionId" AND r."tenantId" = d."tenantId"
    GROUP BY d."reviewerId"
    ORDER BY decisions DESC, d."reviewerId"
    LIMIT 200`);
}
