import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/**
 * The results of an action's executions that have one, as the jsonb column's text: a text is only
 * copied on the request thread, never parsed there (a result may be megabytes; see result-text.ts).
 */
export async function readExecutionResults(q: Queryable, input: { tenantId: string; actionId: string }): Promise<Array<{ id: string; json: string }>> {
  return query<{ id: string; json: string }>(q, Prisma.sql`
    SELECT id, result::text AS json FROM "Execution"
    WHERE "actionId" = ${input.actionId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND jsonb_typeof(result) <> 'null'`);
}
