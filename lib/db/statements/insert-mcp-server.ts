import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/audit/audit-record";
import { auditCte } from "@/lib/db/statements/insert-audit-events";

/**
 * A new upstream MCP server of the tenant with its `mcp.server_registered` event, in one
 * statement. False: the tenant already has a server of that name (nothing written).
 */
export async function insertMcpServer(
  q: Queryable,
  input: {
    id: string; tenantId: string; name: string; transport: "http" | "stdio"; url: string | null; command: string | null; args: string[];
    secretNames: string[]; sealedSecrets: string | null; createdById: string; registered: AttestedAuditBody;
  },
): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH inserted AS (
      INSERT INTO "McpServer" (id, "tenantId", name, transport, url, command, args, "secretNames", "sealedSecrets", "createdById", "createdAt")
      VALUES (${input.id}::uuid, ${input.tenantId}::uuid, ${input.name}, ${input.transport}::"McpTransport", ${input.url}, ${input.command},
        ${input.args}::text[], ${input.secretNames}::text[], ${input.sealedSecrets}, ${input.createdById}::uuid, now())
      ON CONFLICT ("tenantId", name) DO NOTHING
      RETURNING id
    ),
    ${auditCte(input.registered, { gate: "inserted" })}
    SELECT id FROM inserted`);
  return rows.length === 1;
}
