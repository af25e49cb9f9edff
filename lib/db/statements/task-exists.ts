import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the tenant has this task. */
export async function taskExists(q: Queryable, input: { tenantId: string; taskId: string }): Promise<boolean> {
  if (!UUID.test(input.taskId)) return false;
  const rows = await query(q, Prisma.sql`SELECT 1 FROM "Task" WHERE id = ${input.taskId}::uuid AND "tenantId" = ${input.tenantId}::uuid`);
  return rows.length === 1;
}
