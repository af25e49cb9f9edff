import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * Why a server's tools could not be listed, kept on the server with its audit event. False: its
 * author is not an admin now (admin-rules.ts); nothing written.
 */
export async function recordMcpListFailure(
  q: Queryable,
  input: { tenantId: string; serverId: string; byUserId: string; message: string; failed: AttestedAuditBody },
): Promise<boolean> {
  const [row] = await query<{ admin: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.byUserId}::uuid`)} AS ok),
    server AS (
      UPDATE "McpServer" SET "listError" = ${input.message}
      WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND (SELECT ok FROM admin)
      RETURNING id
    ),
    ${auditCte(input.failed, { gate: "server" })}
    SELECT (SELECT ok FROM admin) AS admin`);
  return row.admin;
}
