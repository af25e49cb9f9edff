import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditCte } from "@/lib/db/statements/insert-audit-events";
import { isUuid } from "@/lib/db/uuid";

/**
 * Removes one upstream server of the tenant and its tools, with the `mcp.server_removed` event,
 * in one statement. An action still waiting on one of its tools is invalidated when it would
 * execute (its tool is gone from the state it rests on). False: no such server in this tenant.
 */
export async function deleteMcpServer(q: Queryable, input: { tenantId: string; serverId: string; removed: AttestedAuditBody }): Promise<boolean> {
  if (!isUuid(input.serverId)) return false;
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH removed AS (
      DELETE FROM "McpServer" WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid RETURNING id
    ),
    ${auditCte(input.removed, { gate: "removed" })}
    SELECT id FROM removed`);
  return rows.length === 1;
}
