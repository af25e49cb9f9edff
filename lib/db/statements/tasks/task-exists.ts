import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { isUuid } from "@/lib/db/uuid";

/** Whether the tenant has this task. */
export async function taskExists(q: Queryable, input: { tenantId: string; taskId: string }): Promise<boolean> {
  if (!isUuid(input.taskId)) return false;
  const rows = await query(q, Prisma.sql`SELECT 1 FROM "Task" WHERE id = ${input.taskId}::uuid AND "tenantId" = ${input.tenantId}::uuid`);
  return rows.length === 1;
}
