import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { lockActingMembership } from "@/lib/db/statements/tenant/lock-acting-membership";
import { sqlTransaction } from "@/lib/db/sql";
import { lockMcpToolsOfServer } from "@/lib/db/statements/mcp/lock-mcp-tools-of-server";
import { readMcpServer } from "@/lib/db/statements/mcp/read-mcp-server";
import { recordMcpListFailure } from "@/lib/db/statements/mcp/record-mcp-list-failure";
import { writeMcpToolList } from "@/lib/db/statements/mcp/write-mcp-tool-list";
import { AppError, isAppError } from "@/lib/errors";
import { asMcpAdmin, noLongerMcpAdmin } from "@/lib/mcp/upstream/as-mcp-admin";
import { reconcileToolList } from "@/lib/mcp/upstream/reconcile-tool-list";
import { openSecrets } from "@/lib/mcp/upstream/secret-box";
import { listUpstreamTools, withUpstream, type UpstreamEndpoint } from "@/lib/mcp/upstream/upstream-client";

/** What one listing found, or why the server could not be listed (kept on the server too). */
export type McpListing =
  | { ok: true; listed: number; added: string[]; held: string[]; gone: string[]; returned: string[]; skipped: string[] }
  | { ok: false; code: string; message: string };

/**
 * Lists a server's tools again with the SDK client and records what changed: new tools wait for
 * an admin; an approved tool the server now describes differently (description, schema,
 * annotations) is held — calls refused — with the change kept for an admin to review; tools it
 * no longer lists are gone. The pinned definitions never change here. A server that cannot be
 * reached or listed leaves everything as it was and says why. What a listing found is recorded
 * only for someone who is an admin when it is written (admin-rules.ts).
 */
export async function refreshMcpServer(db: Db, input: { tenantId: string; admin: Member; serverId: string }): Promise<McpListing> {
  return asMcpAdmin(db, { tenantId: input.tenantId, admin: input.admin, operation: "refresh" }, async () => {
    const server = await readMcpServer(db, { tenantId: input.tenantId, serverId: input.serverId });
    if (!server) throw new AppError("not_found", "That MCP server was not found.", 404);
    const actor = memberAuditActor(input.admin);
    let listed: Tool[];
    try {
      const secrets = openSecrets(server.sealedSecrets, { tenantId: input.tenantId, serverId: server.id, serverName: server.name });
      const endpoint: UpstreamEndpoint = {
        serverName: server.name, transport: server.transport, url: server.url, command: server.command, args: server.args, secrets,
      };
      listed = await withUpstream(endpoint, (client, signal) => listUpstreamTools(client, endpoint, { signal }));
    } catch (error) {
      if (!isAppError(error)) throw error;
      const recorded = await recordMcpListFailure(db, {
        tenantId: input.tenantId, serverId: server.id, byUserId: input.admin.userId, message: error.message,
        failed: auditBodyOf({
          tenantId: input.tenantId, actor, type: "mcp.tools_list_failed", outcome: "error", subject: { type: "mcp_server", id: server.id },
          status: error.code, data: { server: server.name, code: error.code, message: error.message.slice(0, 500) },
        }),
      });
      if (!recorded) throw noLongerMcpAdmin();
      void requestSeal(db, input.tenantId);
      return { ok: false as const, code: error.code, message: error.message };
    }
    const listing = await recordListing(db, { tenantId: input.tenantId, serverId: server.id, byUserId: input.admin.userId, actor }, listed);
    void requestSeal(db, input.tenantId);
    return listing;
  });
}

async function recordListing(db: Db, input: { tenantId: string; serverId: string; byUserId: string; actor: AuditActor }, listed: Tool[]): Promise<McpListing> {
  return sqlTransaction(db, async (tx) => {
    // The admin's membership first (lock-acting-membership.ts), then the server, then its tools, in
    // that order by every writer of a listing.
    await lockActingMembership(tx, { tenantId: input.tenantId, userId: input.byUserId, sessionId: null });
    const server = await readMcpServer(tx, { tenantId: input.tenantId, serverId: input.serverId, lock: true });
    if (!server) throw new AppError("not_found", "That MCP server was removed while its tools were being listed.", 404);
    const stored = await lockMcpToolsOfServer(tx, { tenantId: input.tenantId, serverId: server.id });
    const changes = reconcileToolList(server.name, stored, listed);
    const base = { tenantId: input.tenantId, actor: input.actor };
    const events = [
      auditBodyOf({
        ...base, type: "mcp.tools_listed", outcome: "ok", subject: { type: "mcp_server", id: server.id },
        data: {
          server: server.name, listed: listed.length, added: changes.added, held: changes.held.map((h) => h.qualifiedName),
          gone: changes.gone, returned: changes.returned, skipped: changes.skipped.map((s) => s.slice(0, 300)),
        },
      }),
      ...changes.held.map((held) => auditBodyOf({
        ...base, type: "mcp.tool_held", outcome: "refused", subject: { type: "mcp_tool", id: held.qualifiedName }, tool: held.qualifiedName,
        status: "held",
        data: {
          server: server.name, tool: changes.writes.find((w) => w.qualifiedName === held.qualifiedName)?.name ?? held.qualifiedName,
          approvedHash: held.approvedHash, seenHash: held.seenHash, detectedBy: "refresh",
        },
      })),
    ];
    const written = await writeMcpToolList(tx, { tenantId: input.tenantId, serverId: server.id, byUserId: input.byUserId, tools: changes.writes, events });
    if (!written) throw noLongerMcpAdmin();
    return {
      ok: true as const, listed: listed.length, added: changes.added, held: changes.held.map((h) => h.qualifiedName), gone: changes.gone,
      returned: changes.returned, skipped: changes.skipped,
    };
  });
}
