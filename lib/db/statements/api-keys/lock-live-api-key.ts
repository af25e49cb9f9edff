import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";
import { apiKeyRowIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";

/**
 * Whether API key `apiKeyId` of the tenant may act now (api-key-rules.ts), its row share-locked
 * until the transaction ends when it may: a revocation either committed first (judged on the
 * version waited for) or waits, so nothing done for the key follows its revocation.
 */
export async function lockLiveApiKey(tx: SqlClient, input: { tenantId: string; apiKeyId: string }): Promise<boolean> {
  const rows = await query<{ id: string }>(tx, Prisma.sql`
    SELECT k.id FROM "ApiKey" k
    WHERE k.id = ${input.apiKeyId}::uuid AND k."tenantId" = ${input.tenantId}::uuid AND ${apiKeyRowIsLiveSql(Prisma.sql`k`)}
    FOR SHARE OF k`);
  return rows.length === 1;
}
