import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * Stores the hash of a member's new Slack link code, valid for `ttlSeconds` by the database clock
 * (the clock `redeemSlackLinkCode` checks it against); it replaces an unused one. Returns when it
 * lapses, as stored — or null, writing nothing, when the tenant has not connected Slack.
 */
export async function writeSlackLinkCode(
  q: Queryable,
  input: { tenantId: string; userId: string; codeHash: string; ttlSeconds: number },
): Promise<{ codeExpiresAt: Date } | null> {
  const [row] = await query<{ codeExpiresAt: Date }>(q, Prisma.sql`
    INSERT INTO "SlackUserLink" (id, "tenantId", "userId", "codeHash", "codeExpiresAt")
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, ${input.userId}::uuid, ${input.codeHash},
      now() + make_interval(secs => ${input.ttlSeconds}::int)
    WHERE EXISTS (SELECT 1 FROM "SlackIntegration" i WHERE i."tenantId" = ${input.tenantId}::uuid)
    ON CONFLICT ("tenantId", "userId") DO UPDATE SET "codeHash" = EXCLUDED."codeHash", "codeExpiresAt" = EXCLUDED."codeExpiresAt"
    RETURNING "codeExpiresAt"`);
  return row ?? null;
}
