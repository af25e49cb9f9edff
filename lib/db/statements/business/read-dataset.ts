import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonValue } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";

/** One of the tenant's small analysis data sets by name. */
export async function readDataset(q: Queryable, input: { tenantId: string; name: string }): Promise<{ name: string; content: JsonValue } | null> {
  const [row] = await query<{ name: string; content: JsonValue }>(q, Prisma.sql`
    SELECT name, content FROM "Dataset" WHERE "tenantId" = ${input.tenantId}::uuid AND name = ${input.name}`);
  return row ?? null;
}
