import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { RiskLevel } from "@/lib/generated/prisma/enums";

export type DueAction = {
  id: string; tenantId: string; tool: string; requesterLabel: string; riskLevel: RiskLevel; revision: number; previous: "pending" | "approved";
};

/**
 * Pending and approved-but-unexecuted actions whose window has closed (database clock), oldest
 * first: what the sweeper will expire, read so the console can write (and MAC) their events.
 * `expireActions` re-checks each in the statement that expires it.
 */
export async function readDueActions(q: Queryable, input: { limit: number }): Promise<DueAction[]> {
  return query<DueAction>(q, Prisma.sql`
    SELECT id, "tenantId", tool, "requesterLabel", "riskLevel", "currentRevision" AS revision, status::text AS previous
    FROM "Action"
    WHERE status IN ('pending', 'approved') AND "expiresAt" <= now()
    ORDER BY "expiresAt" LIMIT ${input.limit}`);
}
