import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Records that unrevoked keys were just used (database clock), each unless that was already
 * recorded less than `resolutionSeconds` ago: `lastUsedAt` is a hint for admins, so a busy key
 * costs one write a minute, and all keys used since the last flush share one statement.
 */
export async function touchApiKeysLastUsed(q: Queryable, input: { apiKeyIds: string[]; resolutionSeconds: number }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "ApiKey" SET "lastUsedAt" = date_trunc('milliseconds', now())
    WHERE id = ANY(${input.apiKeyIds}::uuid[]) AND "revokedAt" IS NULL
      AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - make_interval(secs => ${input.resolutionSeconds}))`);
}
