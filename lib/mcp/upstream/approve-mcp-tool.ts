import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { approveMcpTool as writeApproval } from "@/lib/db/statements/mcp/approve-mcp-tool";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";
import { schemaProblem } from "@/lib/mcp/upstream/argument-validator";
import { asMcpAdmin } from "@/lib/mcp/upstream/as-mcp-admin";
import type { UpstreamDefinition } from "@/lib/mcp/upstream/tool-definition";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

export type ApproveMcpToolInput = {
  tenantId: string;
  admin: Member;
  toolId: string;
  /** The hash of the definition the admin was shown: only that one is approved. */
  definitionHash: string;
};

/**
 * An admin approves (pins) the definition a tool's server lists — a new tool, or the changed
 * definition of a held one. From then on agents may propose it and reviewers see this
 * definition; an action approved under the previous definition is invalidated when it would
 * execute (the state it rests on changed) and goes back to the queue.
 */
export async function approveMcpTool(db: Db, input: ApproveMcpToolInput): Promise<{ qualifiedName: string; definitionHash: string }> {
  return asMcpAdmin(db, { tenantId: input.tenantId, admin: input.admin, operation: "approve_tool" }, async () => {
    const tool = isUuid(input.toolId)
      ? await db.mcpTool.findFirst({
        where: { id: input.toolId, tenantId: input.tenantId },
        select: { name: true, qualifiedName: true, status: true, pending: true, pendingHash: true, approvedHash: true, server: { select: { name: true } } },
      })
      : null;
    if (!tool) throw new AppError("not_found", "That MCP tool was not found.", 404);
    if (tool.status !== "new" && tool.status !== "held") {
      throw new AppError("not_pending", `${tool.qualifiedName} has no definition waiting for approval (it is ${tool.status}).`, 409);
    }
    if (tool.pendingHash !== input.definitionHash) {
      throw new AppError("stale_definition", `The server's definition of ${tool.qualifiedName} changed since you opened the page: reload it and review the definition again.`, 409);
    }
    const pending = tool.pending as unknown as UpstreamDefinition;
    const problem = schemaProblem(pending.inputSchema as JsonObject);
    if (problem) throw new AppError("invalid_input_schema", `${tool.qualifiedName} cannot be approved: its input schema cannot be used to check arguments (${problem}).`, 409);
    const result = await writeApproval(db, {
      tenantId: input.tenantId, toolId: input.toolId, definitionHash: input.definitionHash, approvedById: input.admin.userId,
      approvedEvent: auditBodyOf({
        tenantId: input.tenantId, actor: memberAuditActor(input.admin), type: "mcp.tool_approved", outcome: "ok",
        subject: { type: "mcp_tool", id: tool.qualifiedName }, tool: tool.qualifiedName, status: "approved",
        data: { server: tool.server.name, tool: tool.name, definitionHash: input.definitionHash, previousHash: tool.approvedHash },
      }),
    });
    if (!result.approved) {
      if (result.refusal === "not_found") throw new AppError("not_found", "That MCP tool was not found.", 404);
      if (result.refusal === "not_admin") throw noLongerAdmin("approve MCP tools");
      throw new AppError("stale_definition", `The server's definition of ${tool.qualifiedName} changed since you opened the page: reload it and review the definition again.`, 409);
    }
    void requestSeal(db, input.tenantId);
    return { qualifiedName: tool.qualifiedName, definitionHash: input.definitionHash };
  });
}
