import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditCte } from "@/lib/db/statements/audit/insert-audit-events";
import { adminNowSql } from "@/lib/db/statements/tenant/admin-rules";

/**
 * A new upstream MCP server of the tenant with its `mcp.server_registered` event, in one statement.
 * Admin now only (admin-rules.ts); `exists`: the tenant has a server of that name. Nothing written.
 */
export async function insertMcpServer(
  q: Queryable,
  input: {
    id: string; tenantId: string; name: string; transport: "http" | "stdio"; url: string | null; command: string | null; args: string[];
    secretNames: string[]; sealedSecrets: string | null; createdById: string; registered: AttestedAuditBody;
  },
): Promise<{ inserted: true } | { inserted: false; refusal: "not_admin" | "exists" }> {
  const [row] = await query<{ admin: boolean; inserted: boolean }>(q, Prisma.sql`
    WITH admin AS (SELECT ${adminNowSql(Prisma.sql`${input.tenantId}::uuid`, Prisma.sql`${input.createdById}::uuid`)} AS ok),
    inserted AS (
      INSERT INTO "McpServer" (id, "tenantId", name, transport, url, command, args, "secretNames", "sealedSecrets", "createdById", "createdAt")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.name}, ${input.transport}::"McpTransport", ${input.url}, ${input.command},
        ${input.args}::text[], ${input.secretNames}::text[], ${input.sealedSecrets}, ${input.createdById}::uuid, now()
      WHERE (SELECT ok FROM admin)
      ON CONFLICT ("tenantId", name) DO NOTHING
      RETURNING id
    ),
    ${auditCte(input.registered, { gate: "inserted" })}
    SELECT (SELECT ok FROM admin) AS admin, EXISTS (SELECT 1 FROM inserted) AS inserted`);
  if (row.inserted) return { inserted: true };
  return { inserted: false, refusal: row.admin ? "exists" : "not_admin" };
}
