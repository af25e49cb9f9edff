import { randomUUID } from "node:crypto";
import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { insertMcpServer } from "@/lib/db/statements/mcp/insert-mcp-server";
import { AppError, describeInvalid } from "@/lib/errors";
import { asMcpAdmin, noLongerMcpAdmin } from "@/lib/mcp/upstream/as-mcp-admin";
import { refreshMcpServer, type McpListing } from "@/lib/mcp/upstream/refresh-mcp-server";
import { sealSecrets } from "@/lib/mcp/upstream/secret-box";
import { checkUpstreamDestination } from "@/lib/mcp/upstream/upstream-destination";
import { assertStdioCommandAllowed, checkedSecrets, checkedServerUrl, RegisterMcpServerSchema } from "@/lib/mcp/upstream/server-config";

export type RegisterMcpServerInput = { tenantId: string; admin: Member; server: unknown };

/**
 * An admin registers an upstream MCP server: a Streamable HTTP URL, or a command on the console's
 * host that the operator allows (MCP_STDIO_COMMANDS), with secrets that are sealed before they
 * are stored and never shown again. Then its tools are listed at once; none of them can be
 * proposed until an admin approves it. Refusals are audited.
 */
export async function registerMcpServer(db: Db, input: RegisterMcpServerInput): Promise<{ serverId: string; name: string; listing: McpListing }> {
  const registered = await asMcpAdmin(db, { tenantId: input.tenantId, admin: input.admin, operation: "register" }, async () => {
    const parsed = RegisterMcpServerSchema.safeParse(input.server);
    if (!parsed.success) throw new AppError("invalid_mcp_server", describeInvalid(parsed.error), 400);
    const spec = parsed.data;
    const url = spec.transport === "http" ? checkedServerUrl(spec.url) : null;
    if (url) await checkUpstreamDestination(url);
    if (spec.transport === "stdio") assertStdioCommandAllowed(spec.command);
    const secrets = checkedSecrets(spec.transport, spec.secrets);
    const id = randomUUID();
    const secretNames = Object.keys(secrets);
    const command = spec.transport === "stdio" ? spec.command : null;
    const args = spec.transport === "stdio" ? spec.args : [];
    const written = await insertMcpServer(db, {
      id, tenantId: input.tenantId, name: spec.name, transport: spec.transport, url, command, args, secretNames,
      sealedSecrets: sealSecrets(secrets, { tenantId: input.tenantId, serverId: id }), createdById: input.admin.userId,
      registered: auditBodyOf({
        tenantId: input.tenantId, actor: memberAuditActor(input.admin), type: "mcp.server_registered", outcome: "ok",
        subject: { type: "mcp_server", id }, data: { server: spec.name, transport: spec.transport, url, command, args, secretNames },
      }),
    });
    if (!written.inserted && written.refusal === "not_admin") throw noLongerMcpAdmin();
    if (!written.inserted) throw new AppError("mcp_server_exists", `There is already an MCP server named ${spec.name} here: choose another name, or remove that one first.`, 409);
    void requestSeal(db, input.tenantId);
    return { serverId: id, name: spec.name };
  });
  const listing = await refreshMcpServer(db, { tenantId: input.tenantId, admin: input.admin, serverId: registered.serverId });
  return { ...registered, listing };
}
