import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { decodeStoredJson } from "@/lib/db/stored-text";

export type RecordedExecutionRow = { id: string; status: string; result: unknown; isolation: string | null };

/** An action's latest execution as recorded (what a replayed execute hands back). */
export async function readLatestExecution(q: Queryable, input: { tenantId: string; actionId: string }): Promise<RecordedExecutionRow | null> {
  const [row] = await query<RecordedExecutionRow>(q, Prisma.sql`
    SELECT id, status::text AS status, result, isolation FROM "Execution"
    WHERE "actionId" = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid
    ORDER BY "startedAt" DESC LIMIT 1`);
  return row ? { ...row, result: decodeStoredJson(row.result) } : null;
}
