import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AuditProblem } from "@/lib/db/audit-body";

/**
 * Records a signed checkpoint together with the verification it rests on (the leaves since the
 * previous checkpoint), in one statement: there is never a checkpoint without its check.
 */
export async function insertAuditCheckpoint(
  q: Queryable,
  input: {
    tenantId: string; size: bigint; rootHash: string; frontier: string[]; note: string; witnesses: string[];
    checked: number; startedAt: Date; problems: AuditProblem[];
  },
): Promise<{ id: bigint; createdAt: Date }> {
  const [row] = await query<{ id: bigint; createdAt: Date }>(q, Prisma.sql`
    WITH verified AS (
      INSERT INTO "AuditVerification" ("tenantId", kind, ok, checked, "treeSize", problems, "startedAt")
      VALUES (${input.tenantId}::uuid, 'incremental', true, ${input.checked}, ${input.size}, ${JSON.stringify(input.problems)}::jsonb, ${input.startedAt})
    )
    INSERT INTO "AuditCheckpoint" ("tenantId", size, "rootHash", frontier, note, witnesses)
    VALUES (${input.tenantId}::uuid, ${input.size}, ${input.rootHash}, ${input.frontier}::text[], ${input.note}, ${input.witnesses}::text[])
    RETURNING id, "createdAt"`);
  return row;
}
