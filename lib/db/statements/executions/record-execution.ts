import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import { encodeStoredJson } from "@/lib/db/stored-text";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { wakeTaskSql } from "@/lib/db/statements/tasks/wake-task";

export type ExecutionState = "succeeded" | "failed" | "unknown";

export type RecordExecutionInput = {
  tenantId: string;
  executionId: string;
  actionId: string;
  taskId: string | null;
  /** Only this holder of the lease may record (a process that lost its lease to recovery may not). */
  claimedBy: string;
  state: ExecutionState;
  result: JsonObject;
  isolation: string | null;
  durationMs: number;
  /** The `execution.<state>` event. */
  ended: AttestedAuditBody;
};

/**
 * How an execution ended, in one statement: the execution row (only while it is still executing
 * under this holder's lease), its action, the task's wake-up and the audit event. Returns the
 * state the execution row holds afterwards — what was written here, or what recovery recorded
 * first — never a state this statement did not write.
 */
export async function recordExecution(q: Queryable, input: RecordExecutionInput): Promise<{ state: string; recorded: boolean }> {
  // Output may hold what PostgreSQL cannot store (U+0000): every string goes in stored-text encoded.
  const result = encodeStoredJson(input.result);
  const [row] = await query<{ state: string | null; recorded: boolean }>(q, Prisma.sql`
    WITH ended AS (
      UPDATE "Execution" SET status = ${input.state}::"ExecutionStatus", result = ${JSON.stringify(result)}::jsonb,
        isolation = ${input.isolation}, stdout = ${typeof result.stdout === "string" ? result.stdout : null},
        stderr = ${typeof result.stderr === "string" ? result.stderr : null},
        "exitCode" = ${typeof result.exit_code === "number" ? result.exit_code : null}::int,
        truncated = ${result.truncated === true}, "durationMs" = ${input.durationMs}::int,
        "finishedAt" = now(), "leaseExpiresAt" = NULL
      WHERE id = ${input.executionId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status = 'executing'
        AND "claimedBy" = ${input.claimedBy}
      RETURNING id
    ),
    ${auditCte(input.ended, { gate: "ended" })},
    action AS (
      UPDATE "Action" SET status = ${input.state}::"ActionStatus", "updatedAt" = now()
      FROM ended WHERE "Action".id = ${input.actionId}::uuid
    ),
    wake AS (${wakeTaskSql(Prisma.sql`${input.taskId}::uuid`, Prisma.sql`EXISTS (SELECT 1 FROM ended)`)})
    SELECT COALESCE((SELECT ${input.state}::text FROM ended),
      (SELECT status::text FROM "Execution" WHERE id = ${input.executionId}::uuid)) AS state,
      EXISTS (SELECT 1 FROM ended) AS recorded`);
  return { state: row?.state ?? "unknown", recorded: row?.recorded ?? false };
}
