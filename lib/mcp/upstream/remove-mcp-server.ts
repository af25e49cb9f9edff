import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { deleteMcpServer } from "@/lib/db/statements/mcp/delete-mcp-server";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";
import { asMcpAdmin, noLongerMcpAdmin } from "@/lib/mcp/upstream/as-mcp-admin";

/**
 * Removes an upstream server and its tools (its secrets with it). Actions still waiting on one of
 * its tools can no longer execute: the state they rest on is gone, so they are invalidated.
 */
export async function removeMcpServer(db: Db, input: { tenantId: string; admin: Member; serverId: string }): Promise<{ name: string }> {
  return asMcpAdmin(db, { tenantId: input.tenantId, admin: input.admin, operation: "remove" }, async () => {
    const server = isUuid(input.serverId)
      ? await db.mcpServer.findFirst({ where: { id: input.serverId, tenantId: input.tenantId }, select: { name: true, _count: { select: { tools: true } } } })
      : null;
    if (!server) throw new AppError("not_found", "That MCP server was not found.", 404);
    const removed = await deleteMcpServer(db, {
      tenantId: input.tenantId, serverId: input.serverId, byUserId: input.admin.userId,
      removed: auditBodyOf({
        tenantId: input.tenantId, actor: memberAuditActor(input.admin), type: "mcp.server_removed", outcome: "ok",
        subject: { type: "mcp_server", id: input.serverId }, data: { server: server.name, tools: server._count.tools },
      }),
    });
    if (!removed.removed && removed.refusal === "not_admin") throw noLongerMcpAdmin();
    if (!removed.removed) throw new AppError("not_found", "That MCP server was not found.", 404);
    void requestSeal(db, input.tenantId);
    return { name: server.name };
  });
}
