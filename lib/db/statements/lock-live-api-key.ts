import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-key-rules";

/**
 * Whether API key `apiKeyId` of tenant `tenantId` may act now (api-key-rules.ts), its row
 * share-locked until the transaction ends when it may: a revocation (an UPDATE of that row) waits
 * for the act, so nothing the transaction does for the key can follow its revocation.
 */
export async function lockLiveApiKey(tx: SqlClient, input: { tenantId: string; apiKeyId: string }): Promise<boolean> {
  const rows = await query<{ id: string }>(tx, Prisma.sql`
    SELECT k.id FROM "ApiKey" k
    WHERE k.id = ${input.apiKeyId}::uuid AND k."tenantId" = ${input.tenantId}::uuid AND ${apiKeyIsLiveSql(Prisma.sql`k.id`)}
    FOR SHARE OF k`);
  return rows.length === 1;
}
