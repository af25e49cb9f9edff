import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditCte } from "@/lib/db/statements/insert-audit-events";

/** Why a server's tools could not be listed, kept on the server for its admins, with its audit event. */
export async function recordMcpListFailure(q: Queryable, input: { tenantId: string; serverId: string; message: string; failed: AttestedAuditBody }): Promise<void> {
  await query(q, Prisma.sql`
    WITH server AS (
      UPDATE "McpServer" SET "listError" = ${input.message}
      WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid
      RETURNING id
    ),
    ${auditCte(input.failed, { gate: "server" })}
    SELECT id FROM server`);
}
