import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";
import { isUuid } from "@/lib/db/uuid";

/**
 * Removes one upstream server of the tenant and its tools with the `mcp.server_removed` event, in
 * one statement; an action still waiting on one of its tools is invalidated when it would execute.
 * Admin now only (admin-rules.ts). The refusal names the rule.
 */
export async function deleteMcpServer(
  q: Queryable,
  input: { tenantId: string; serverId: string; byUserId: string; removed: AttestedAuditBody },
): Promise<{ removed: true } | { removed: false; refusal: "not_admin" | "not_found" }> {
  if (!isUuid(input.serverId)) return { removed: false, refusal: "not_found" };
  const [row] = await query<{ admin: boolean; removed: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    removed AS (
      DELETE FROM "McpServer" WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin) RETURNING id
    ),
    ${auditCte(input.removed, { gate: "removed" })}
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM removed) AS removed`);
  if (row.removed) return { removed: true };
  return { removed: false, refusal: row.admin ? "not_found" : "not_admin" };
}
