import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records that unrevoked keys were just used (database clock), unless recorded less than
 * `resolutionSeconds` ago: `lastUsedAt` is a hint, so a busy key costs one write a minute. A key an
 * execution holds (claim-approval.ts share-locks it) is skipped, not waited for: a hint may lag.
 */
export async function touchApiKeysLastUsed(q: Queryable, input: { apiKeyIds: string[]; resolutionSeconds: number }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "ApiKey" SET "lastUsedAt" = date_trunc('milliseconds', now())
    WHERE id IN (
      SELECT k.id FROM "ApiKey" k
      WHERE k.id = ANY(${input.apiKeyIds}::uuid[]) AND k."revokedAt" IS NULL
        AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < now() - make_interval(secs => ${input.resolutionSeconds}))
      ORDER BY k.id FOR NO KEY UPDATE OF k SKIP LOCKED)`);
}
