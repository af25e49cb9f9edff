import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";
import { substringPattern } from "@/lib/db/statements/audit/read-audit-events-matching-text";

/** The audit filters the charts follow (event type selects events, not actions). */
export type ChartFilter = { tool?: string; risk?: RiskLevel; requester?: string; status?: string; reviewerId?: string; verdict?: Verdict; text?: string };

/**
 * ` AND …` conditions on the action aliased `a` (empty when nothing is filtered): its tool, risk,
 * requester and status, for a reviewer or decision filter a vote of that reviewer / verdict, and
 * for search text the action's own words containing it (case-insensitive) — its tool, requester,
 * reason, any revision's arguments or code, a reviewer's note — as the events list searches them.
 */
export function chartActionConditions(f: ChartFilter | undefined): Prisma.Sql {
  if (!f) return Prisma.empty;
  const parts: Prisma.Sql[] = [];
  if (f.tool) parts.push(Prisma.sql`a.tool = ${f.tool}`);
  if (f.risk) parts.push(Prisma.sql`a."riskLevel"::text = ${f.risk}`);
  if (f.requester) parts.push(Prisma.sql`a."requesterLabel" = ${f.requester}`);
  if (f.status) parts.push(Prisma.sql`a.status::text = ${f.status}`);
  if (f.reviewerId || f.verdict) {
    parts.push(Prisma.sql`EXISTS (SELECT 1 FROM "Decision" v WHERE v."actionId" = a.id AND v."tenantId" = a."tenantId" AND NOT v.void
      ${f.reviewerId ? Prisma.sql`AND v."reviewerId" = ${f.reviewerId}::uuid` : Prisma.empty}
      ${f.verdict ? Prisma.sql`AND v.verdict::text = ${f.verdict}` : Prisma.empty})`);
  }
  if (f.text) {
    const pattern = substringPattern(f.text);
    parts.push(Prisma.sql`(a.tool ILIKE ${pattern} OR a."requesterLabel" ILIKE ${pattern} OR a.reason ILIKE ${pattern}
      OR EXISTS (SELECT 1 FROM "ActionRevision" tr WHERE tr."actionId" = a.id AND tr."tenantId" = a."tenantId" AND (tr.args::text ILIKE ${pattern} OR tr.code ILIKE ${pattern}))
      OR EXISTS (SELECT 1 FROM "Decision" tn WHERE tn."actionId" = a.id AND tn."tenantId" = a."tenantId" AND tn.note ILIKE ${pattern}))`);
  }
  return parts.length ? Prisma.sql` AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}
