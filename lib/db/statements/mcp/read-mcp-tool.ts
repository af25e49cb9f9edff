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
 * Upstream tools of the tenant that have a pinned definition, with their server's name: the one
 * named `qualifiedName`, or every one when it is absent. `lock` (with a name): FOR SHARE until the
 * transaction ends — the claim of an execution holds it, so an approval of a changed definition
 * waits until the effect that rests on the pinned one has committed.
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
