import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

export type StoredMcpTool = {
  id: string;
  name: string;
  qualifiedName: string;
  status: "new" | "approved" | "held" | "gone";
  approvedHash: string | null;
  pendingHash: string | null;
};

/**
 * The tools recorded for one server of the tenant, locked (FOR UPDATE) until the transaction
 * ends: an approval or a hold that comes meanwhile waits, then finds the state this transaction
 * left and decides on that.
 */
export async function lockMcpToolsOfServer(tx: SqlClient, input: { tenantId: string; serverId: string }): Promise<StoredMcpTool[]> {
  return query<StoredMcpTool>(tx, Prisma.sql`
    SELECT id, name, "qualifiedName", status::text AS status, "approvedHash", "pendingHash"
    FROM "McpTool" WHERE "serverId" = ${input.serverId}::uuid AND "tenantId" = ${input.tenantId}::uuid
    ORDER BY name FOR UPDATE`);
}
