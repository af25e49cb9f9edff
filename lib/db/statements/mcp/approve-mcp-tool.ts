import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { isUuid } from "@/lib/db/uuid";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

export type McpToolApproval =
  | { approved: true }
  | { approved: false; refusal: "not_found" | "not_pending" | "stale_definition" | "not_admin" };

/**
 * An admin's approval of a tool's pending definition, which becomes the pinned one, with its
 * `mcp.tool_approved` event, in one statement: only while the pending definition is the one the
 * admin saw (`definitionHash`), and only by an admin now (admin-rules.ts). The refusal names the rule.
 */
export async function approveMcpTool(
  q: Queryable,
  input: { tenantId: string; toolId: string; definitionHash: string; approvedById: string; approvedEvent: AttestedAuditBody },
): Promise<McpToolApproval> {
  if (!isUuid(input.toolId)) return { approved: false, refusal: "not_found" };
  const [row] = await query<{ admin: boolean; found: boolean; approved: boolean; status: string | null; pendingHash: string | null }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.approvedById}::uuid`)} AS ok),
    target AS (
      SELECT id, status::text AS status, "pendingHash" FROM "McpTool"
      WHERE id = ${input.toolId}::uuid AND "tenantId" = ${input.tenantId}::uuid FOR UPDATE
    ),
    approved AS (
      UPDATE "McpTool" t SET approved = t.pending, "approvedHash" = t."pendingHash", "approvedById" = ${input.approvedById}::uuid,
        "approvedAt" = now(), pending = NULL, "pendingHash" = NULL, status = 'approved'
      FROM target
      WHERE t.id = target.id AND target.status IN ('new', 'held') AND target."pendingHash" = ${input.definitionHash} AND (SELECT ok FROM admin)
      RETURNING t.id
    ),
    ${auditCte(input.approvedEvent, { gate: "approved" })}
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM target) AS found, EXISTS (SELECT 1 FROM approved) AS approved,
      (SELECT status FROM target) AS status, (SELECT "pendingHash" FROM target) AS "pendingHash"`);
  if (row.approved) return { approved: true };
  if (!row.admin) return { approved: false, refusal: "not_admin" };
  if (!row.found) return { approved: false, refusal: "not_found" };
  if (row.status !== "new" && row.status !== "held") return { approved: false, refusal: "not_pending" };
  return { approved: false, refusal: "stale_definition" };
}
