import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonValue } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The tenant's data sets with these names (those that exist). `lock`: held until the transaction
 * ends, so what an execution verified is what it runs on.
 */
export async function readDatasets(
  q: Queryable,
  input: { tenantId: string; names: string[]; lock?: boolean },
): Promise<{ name: string; content: JsonValue }[]> {
  return query<{ name: string; content: JsonValue }>(q, Prisma.sql`
    SELECT name, content FROM "Dataset" WHERE "tenantId" = ${input.tenantId}::uuid AND name = ANY(${input.names}::text[])
    ORDER BY name
    ${input.lock ? Prisma.sql`FOR SHARE` : Prisma.empty}`);
}
