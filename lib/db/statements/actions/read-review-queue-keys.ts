import { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { query, type Queryable } from "@/lib/db/sql";

/** The queue sort key of the last row shown, for the next page (keyset pagination). */
export type QueueCursor = { riskRank: number; expiresAt: string; id: string };

/** An action's place in the queue order; `own` marks the reviewer's own requests. */
export type ReviewQueueKey = { own: boolean; id: string; riskRank: number; expiresAt: Date };

const ORDER = Prisma.sql`ORDER BY "riskRank" DESC, "expiresAt", id`;

/**
 * Which actions a page of the reviewer's queue shows, in its order (riskiest first, then soonest
 * to expire, then id), walking the (tenantId, status, riskRank, expiresAt) index: up to `limit`
 * pending actions still open by the database clock that the reviewer's roles may decide and that
 * they did not request, after `after` (keyset); and up to `ownLimit` of the reviewer's own open
 * requests, which they may not decide. One statement, so both lists are open at the same now().
 */
export async function readReviewQueueKeys(
  q: Queryable,
  input: { tenantId: string; userId: string; roles: Role[]; after: QueueCursor | null; limit: number; ownLimit: number },
): Promise<ReviewQueueKey[]> {
  const { after } = input;
  const keyset = after
    ? Prisma.sql`AND ("riskRank" < ${after.riskRank}::int
        OR ("riskRank" = ${after.riskRank}::int AND "expiresAt" > ${after.expiresAt}::timestamptz)
        OR ("riskRank" = ${after.riskRank}::int AND "expiresAt" = ${after.expiresAt}::timestamptz AND id > ${after.id}::uuid))`
    : Prisma.empty;
  return query<ReviewQueueKey>(q, Prisma.sql`
    SELECT own, id, "riskRank", "expiresAt" FROM (
      (SELECT false AS own, id, "riskRank", "expiresAt" FROM "Action"
        WHERE "tenantId" = ${input.tenantId}::uuid AND status = 'pending' AND "expiresAt" > now()
          AND "eligibleRoles" && ${input.roles}::"Role"[]
          AND ("requesterUserId" IS NULL OR "requesterUserId" <> ${input.userId}::uuid) ${keyset}
        ${ORDER} LIMIT ${input.limit}::int)
      UNION ALL
      (SELECT true AS own, id, "riskRank", "expiresAt" FROM "Action"
        WHERE "tenantId" = ${input.tenantId}::uuid AND status = 'pending' AND "expiresAt" > now()
          AND "requesterUserId" = ${input.userId}::uuid
        ${ORDER} LIMIT ${input.ownLimit}::int)
    ) keys
    ORDER BY own, "riskRank" DESC, "expiresAt", id`);
}
