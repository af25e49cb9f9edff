import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The tenant's data sets with these names, their content as JSON text (parsing costs time with its
 * size: the compute pool does it, lib/datasets/load-dataset-files.ts). `lock`: held until the
 * transaction ends, so what an execution verified is what it runs on.
 */
export type DatasetText = { name: string; contentText: string };

export async function readDatasets(
  q: Queryable,
  input: { tenantId: string; names: string[]; lock?: boolean },
): Promise<DatasetText[]> {
  return query<DatasetText>(q, Prisma.sql`
    SELECT name, content::text AS "contentText" FROM "Dataset" WHERE "tenantId" = ${input.tenantId}::uuid AND name = ANY(${input.names}::text[])
    ORDER BY name
    ${input.lock ? Prisma.sql`FOR SHARE` : Prisma.empty}`);
}
