"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { consoleMember, type ActingMember } from "@/lib/auth/acting-member";
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
const adminOf = (member: ActingMember): Member => consoleMember(member);

const register = memberAction(
  { name: "admin.mcp.register", permission: "admin:manage", input: RegisterMcpServerSchema },
  async (server, member) => {
    const result = await registerMcpServer(getDb(), { tenantId: member.tenant.id, admin: adminOf(member), server });
    revalidatePath("/admin/mcp");
    return result;
  },
);
export async function registerMcpServerAction(raw: unknown): Promise<ActionResult<{ serverId: string; name: string; listing: McpListing }>> {
  return register(raw);
}

const refresh = memberAction(
  { name: "admin.mcp.refresh", permission: "admin:manage", input: z.strictObject({ serverId: z.uuid() }) },
  async ({ serverId }, member) => {
    const listing = await refreshMcpServer(getDb(), { tenantId: member.tenant.id, admin: adminOf(member), serverId });
    revalidatePath("/admin/mcp");
    return listing;
  },
);
export async function refreshMcpServerAction(raw: unknown): Promise<ActionResult<McpListing>> {
  return refresh(raw);
}

const approve = memberAction(
  {
    name: "admin.mcp.approve_tool", permission: "admin:manage",
    input: z.strictObject({ toolId: z.uuid(), definitionHash: z.string().regex(/^[0-9a-f]{64}$/) }),
  },
  async ({ toolId, definitionHash }, member) => {
    const result = await approveMcpTool(getDb(), { tenantId: member.tenant.id, admin: adminOf(member), toolId, definitionHash });
    revalidatePath("/admin/mcp");
    revalidatePath("/admin");
    return result;
  },
);
export async function approveMcpToolAction(raw: unknown): Promise<ActionResult<{ qualifiedName: string; definitionHash: string }>> {
  return approve(raw);
}

const remove = memberAction(
  { name: "admin.mcp.remove", permission: "admin:manage", input: z.strictObject({ serverId: z.uuid() }) },
  async ({ serverId }, member) => {
    const result = await removeMcpServer(getDb(), { tenantId: member.tenant.id, admin: adminOf(member), serverId });
    revalidatePath("/admin/mcp");
    revalidatePath("/admin");
    return result;
  },
);
export async function removeMcpServerAction(raw: unknown): Promise<ActionResult<{ name: string }>> {
  return remove(raw);
}

const replaceSecrets = memberAction(
  { name: "admin.mcp.replace_secrets", permission: "admin:manage", input: z.strictObject({ serverId: z.uuid(), secrets: ReplaceSecretsSchema }) },
  async ({ serverId, secrets }, member) => {
    const result = await replaceMcpServerSecrets(getDb(), { tenantId: member.tenant.id, admin: adminOf(member), serverId, secrets });
    revalidatePath("/admin/mcp");
    return result;
  },
);
export async function replaceMcpServerSecretsAction(raw: unknown): Promise<ActionResult<{ secretNames: string[] }>> {
  return replaceSecrets(raw);
}
