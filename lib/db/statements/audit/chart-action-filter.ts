import { Prisma } from "@/lib/generated/prisma/client";
import type { RiskLevel, Verdict } from "@/lib/generated/prisma/enums";

/** The audit filters the charts follow (event type and free text select events, not actions). */
export type ChartFilter = { tool?: string; risk?: RiskLevel; requester?: string; status?: string; reviewerId?: string; verdict?: Verdict };

/**
 * ` AND …` conditions on the action aliased `a` (empty when nothing is filtered): its tool, risk,
 * requester and status, and for a reviewer or decision filter, a vote of that reviewer / verdict.
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
  return parts.length ? Prisma.sql` AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}
