import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { isUuid } from "@/lib/db/uuid";

export type McpServerRow = {
  id: string;
  tenantId: string;
  name: string;
  transport: "http" | "stdio";
  url: string | null;
  command: string | null;
  args: string[];
  secretNames: string[];
  /** Sealed (lib/mcp/upstream/secret-box.ts): opened only to connect. */
  sealedSecrets: string | null;
};

/**
 * One upstream server of the tenant, with what it takes to connect. `lock`: FOR UPDATE until the
 * transaction ends (a refresh holds it while it records a listing, so two never interleave).
 * Null: no such server in this tenant.
 */
export async function readMcpServer(q: Queryable, input: { tenantId: string; serverId: string; lock?: boolean }): Promise<McpServerRow | null> {
  if (!isUuid(input.serverId)) return null;
  const [row] = await query<McpServerRow>(q, Prisma.sql`
    SELECT id, "tenantId", name, transport::text AS transport, url, command, args, "secretNames", "sealedSecrets"
    FROM "McpServer" WHERE id = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid
    ${input.lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`);
  return row ?? null;
}
