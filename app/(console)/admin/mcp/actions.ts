"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { consoleMember } from "@/lib/auth/acting-member";
import type { Member } from "@/lib/approvals/actors";
import { approveMcpTool } from "@/lib/mcp/upstream/approve-mcp-tool";
import type { McpListing } from "@/lib/mcp/upstream/refresh-mcp-server";
import { refreshMcpServer } from "@/lib/mcp/upstream/refresh-mcp-server";
import { registerMcpServer } from "@/lib/mcp/upstream/register-mcp-server";
import { removeMcpServer } from "@/lib/mcp/upstream/remove-mcp-server";
import { replaceMcpServerSecrets, ReplaceSecretsSchema } from "@/lib/mcp/upstream/replace-mcp-server-secrets";
import { RegisterMcpServerSchema } from "@/lib/mcp/upstream/server-config";
import { memberAction, type ActionResult } from "@/lib/server/boundary";

// MCP acts are judged by admin-rules.ts in their statements; the session they carry is checked at the boundary only.
type AdminScope = { tenantId: string; admin: Member };

/** An admin act on the tenant's MCP servers, then the pages that show them rendered again. */
function mcpAdminAction<S extends z.ZodType, T>(name: string, input: S, act: (scope: AdminScope, input: z.infer<S>) => Promise<T>, pages = ["/admin/mcp"]) {
  return memberAction({ name, permission: "admin:manage", input }, async (parsed, member) => {
    const result = await act({ tenantId: member.tenant.id, admin: consoleMember(member) }, parsed);
    for (const page of pages) revalidatePath(page);
    return result;
  });
}

const ServerIdSchema = z.strictObject({ serverId: z.uuid() });
// Approving a tool or removing its server changes the tool catalog on the admin page too.
const WITH_ADMIN_PAGE = ["/admin/mcp", "/admin"];

const register = mcpAdminAction("admin.mcp.register", RegisterMcpServerSchema, (scope, server) => registerMcpServer(getDb(), { ...scope, server }));
export async function registerMcpServerAction(raw: unknown): Promise<ActionResult<{ serverId: string; name: string; listing: McpListing }>> {
  return register(raw);
}

const refresh = mcpAdminAction("admin.mcp.refresh", ServerIdSchema, (scope, { serverId }) => refreshMcpServer(getDb(), { ...scope, serverId }));
export async function refreshMcpServerAction(raw: unknown): Promise<ActionResult<McpListing>> {
  return refresh(raw);
}

const approve = mcpAdminAction(
  "admin.mcp.approve_tool",
  z.strictObject({ toolId: z.uuid(), definitionHash: z.string().regex(/^[0-9a-f]{64}$/) }),
  (scope, { toolId, definitionHash }) => approveMcpTool(getDb(), { ...scope, toolId, definitionHash }),
  WITH_ADMIN_PAGE,
);
export async function approveMcpToolAction(raw: unknown): Promise<ActionResult<{ qualifiedName: string; definitionHash: string }>> {
  return approve(raw);
}

const remove = mcpAdminAction("admin.mcp.remove", ServerIdSchema, (scope, { serverId }) => removeMcpServer(getDb(), { ...scope, serverId }), WITH_ADMIN_PAGE);
export async function removeMcpServerAction(raw: unknown): Promise<ActionResult<{ name: string }>> {
  return remove(raw);
}

const replaceSecrets = mcpAdminAction(
  "admin.mcp.replace_secrets",
  z.strictObject({ serverId: z.uuid(), secrets: ReplaceSecretsSchema }),
  (scope, { serverId, secrets }) => replaceMcpServerSecrets(getDb(), { ...scope, serverId, secrets }),
);
export async function replaceMcpServerSecretsAction(raw: unknown): Promise<ActionResult<{ secretNames: string[] }>> {
  return replaceSecrets(raw);
}
