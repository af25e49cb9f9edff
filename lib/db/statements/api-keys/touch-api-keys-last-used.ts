import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records that unrevoked keys were just used (database clock), each unless that was already
 * recorded less than `resolutionSeconds` ago: `lastUsedAt` is a hint for admins, so a busy key
 * costs one write a minute, and all keys used since the last flush share one statement. A key an
 * execution holds (its claim share-locks the key, claim-approval.ts) is skipped, not waited for:
 * that use is recorded only if the key is used again later (a hint may lag).
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
