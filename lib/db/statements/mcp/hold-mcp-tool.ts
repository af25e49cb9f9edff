import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";

/**
 * Holds a tool whose server now describes it differently from its pinned definition, with the new
 * description pending and the `mcp.tool_held` event, in one statement: only while `approvedHash` is
 * still pinned and the tool is not already held with this definition. False: nothing changed.
 */
export async function holdMcpTool(
  q: Queryable,
  input: { tenantId: string; qualifiedName: string; approvedHash: string; pending: JsonObject; pendingHash: string; held: AttestedAuditBody },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH held AS (
      UPDATE "McpTool" SET status = 'held', pending = ${JSON.stringify(input.pending)}::jsonb, "pendingHash" = ${input.pendingHash}
      WHERE "tenantId" = ${input.tenantId}::uuid AND "qualifiedName" = ${input.qualifiedName} AND "approvedHash" = ${input.approvedHash}
        AND "approvedHash" <> ${input.pendingHash} AND status IN ('approved', 'held') AND "pendingHash" IS DISTINCT FROM ${input.pendingHash}
      RETURNING id
    ),
    ${auditCte(input.held, { gate: "held" })}
    SELECT id FROM held`);
  return rows.length === 1;
}
