import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { apiKeyIsLiveSql } from "@/lib/db/statements/api-keys/api-key-rules";

export type ApiKeyByPrefixRow = {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  allowedTools: string[];
  secretHash: string;
  revoked: boolean;
};

/** The key with this public prefix, with its secret's hash and whether it is revoked; null: none. */
export async function readApiKeyByPrefix(q: Queryable, input: { prefix: string }): Promise<ApiKeyByPrefixRow | null> {
  const [row] = await query<ApiKeyByPrefixRow>(q, Prisma.sql`
    SELECT k.id, k."tenantId", k.name, k.prefix, k."allowedTools", k."secretHash", NOT ${apiKeyIsLiveSql(Prisma.sql`k.id`)} AS revoked
    FROM "ApiKey" k WHERE k.prefix = ${input.prefix}`);
  return row ?? null;
}
