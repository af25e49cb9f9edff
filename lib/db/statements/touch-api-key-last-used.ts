import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records that an unrevoked key was just used (database clock), unless that was already recorded
 * less than `resolutionSeconds` ago: `lastUsedAt` is a hint for admins, so a busy key costs one
 * write a minute, not one per request.
 */
export async function touchApiKeyLastUsed(q: Queryable, input: { apiKeyId: string; resolutionSeconds: number }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "ApiKey" SET "lastUsedAt" = date_trunc('milliseconds', now())
    WHERE id = ${input.apiKeyId}::uuid AND "revokedAt" IS NULL
      AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - make_interval(secs => ${input.resolutionSeconds}))`);
}
