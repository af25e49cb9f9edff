import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type ExecutionArtifactRow = {
  id: string;
  tenantId: string;
  executionId: string;
  name: string;
  contentType: string;
  sha256: string;
  data: Buffer;
};

/**
 * One artifact of an execution, only while that execution is still executing under `claimedBy`'s
 * lease (a delivery that lost its lease to recovery stores nothing). Returns whether it was stored.
 */
export async function insertExecutionArtifact(q: Queryable, row: ExecutionArtifactRow & { claimedBy: string }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    INSERT INTO "ExecutionArtifact" (id, "tenantId", "executionId", name, "contentType", "sizeBytes", sha256, data)
    SELECT ${row.id}::uuid, ${row.tenantId}::uuid, ${row.executionId}::uuid, ${row.name}, ${row.contentType},
      ${row.data.length}::int, ${row.sha256}, ${row.data}::bytea
    FROM "Execution" e
    WHERE e.id = ${row.executionId}::uuid AND e."tenantId" = ${row.tenantId}::uuid AND e.status = 'executing' AND e."claimedBy" = ${row.claimedBy}
    RETURNING id`);
  return rows.length === 1;
}
