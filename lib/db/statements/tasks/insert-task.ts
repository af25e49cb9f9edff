import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";

/** A new task, runnable now by the database clock, with its `task.started` event (subject id filled in here). */
export async function insertTask(
  q: Queryable,
  input: { taskId: string; tenantId: string; requesterUserId: string; instruction: string; planner: string; runState: JsonObject; started: AttestedAuditBody },
): Promise<void> {
  await query(q, Prisma.sql`
    WITH task AS (
      INSERT INTO "Task" (id, "tenantId", "requesterUserId", instruction, status, planner, "runState", "runnableAt", "updatedAt")
      VALUES (${input.taskId}::uuid, ${input.tenantId}::uuid, ${input.requesterUserId}::uuid, ${input.instruction}, 'queued', ${input.planner},
        ${JSON.stringify(input.runState)}::jsonb, now(), now())
      RETURNING id
    ),
    ${auditCte(input.started, { gate: "task" })}
    SELECT id FROM task`);
}
