import { Prisma } from "@/lib/generated/prisma/client";
import type { JsonObject } from "@/lib/canonical/json-value";
import { query, type Queryable } from "@/lib/db/sql";

export type McpToolRow = {
  id: string;
  serverId: string;
  server: string;
  name: string;
  qualifiedName: string;
  status: "new" | "approved" | "held" | "gone";
  /** The pinned definition (lib/mcp/upstream/tool-definition.ts), null until one is approved. */
  approved: JsonObject | null;
  approvedHash: string | null;
};

/**
 * The tenant's upstream tools with a pinned definition and their server's name: the one named
 * `qualifiedName`, or all. `lock` (with a name): FOR SHARE until the transaction ends, so an
 * approval of a changed definition waits for the effect an execution rests on the pinned one.
 */
export async function readMcpTools(q: Queryable, input: { tenantId: string; qualifiedName?: string; lock?: boolean }): Promise<McpToolRow[]> {
  return query<McpToolRow>(q, Prisma.sql`
    SELECT t.id, t."serverId", s.name AS server, t.name, t."qualifiedName", t.status::text AS status, t.approved, t."approvedHash"
    FROM "McpTool" t JOIN "McpServer" s ON s.id = t."serverId" AND s."tenantId" = t."tenantId"
    WHERE t."tenantId" = ${input.tenantId}::uuid AND t."approvedHash" IS NOT NULL
      ${input.qualifiedName !== undefined ? Prisma.sql`AND t."qualifiedName" = ${input.qualifiedName}` : Prisma.empty}
    ORDER BY t."qualifiedName"
    ${input.lock && input.qualifiedName !== undefined ? Prisma.sql`FOR SHARE OF t` : Prisma.empty}`);
}
