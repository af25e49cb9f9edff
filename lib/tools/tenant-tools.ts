import type { Queryable } from "@/lib/db/sql";
import { readMcpTools } from "@/lib/db/statements/mcp/read-mcp-tool";
import { AppError } from "@/lib/errors";
import { unavailableReason, upstreamTool } from "@/lib/mcp/upstream/upstream-tool";
import { findTool, requireTool, TOOLS } from "@/lib/tools/registry";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The one answer to "which tools does this tenant have": the built-ins and its approved upstream
 * MCP tools (`<server>__<tool>`), so an upstream tool is a tool like any other and another
 * tenant's never is.
 */

/** Built-in names never contain "__"; upstream tools' always do. */
export function isUpstreamToolName(name: string): boolean {
  return name.includes("__");
}

/** The tools the tenant's agents may propose now: built-ins, then approved upstream tools. */
export async function toolsForTenant(q: Queryable, tenantId: string): Promise<ToolDefinition[]> {
  const rows = await readMcpTools(q, { tenantId });
  return [...TOOLS, ...rows.filter((row) => row.status === "approved").map(upstreamTool)];
}

/**
 * The tool a new proposal names, or an AppError that says why it cannot be proposed: no such tool
 * here, or an upstream tool that is held (its server changed it) or gone.
 */
export async function resolveTool(q: Queryable, tenantId: string, name: string): Promise<ToolDefinition> {
  if (!isUpstreamToolName(name)) return requireTool(name);
  const [row] = await readMcpTools(q, { tenantId, qualifiedName: name });
  if (!row) {
    throw new AppError(
      "unknown_tool",
      `There is no approved MCP tool named “${name.slice(0, 64)}” in this organisation: an admin registers MCP servers and approves their tools under Admin → Upstream MCP servers.`,
      400,
    );
  }
  const unavailable = unavailableReason(row);
  if (unavailable) throw new AppError(row.status === "held" ? "tool_held" : "tool_gone", unavailable, 409);
  return upstreamTool(row);
}

/**
 * The tool of an action already proposed, whatever state an upstream tool is in now: its snapshot
 * reports a held or gone tool as changed state, so the approval is invalidated, not executed.
 */
export async function findTenantTool(q: Queryable, tenantId: string, name: string): Promise<ToolDefinition | undefined> {
  if (!isUpstreamToolName(name)) return findTool(name);
  const [row] = await readMcpTools(q, { tenantId, qualifiedName: name });
  return row ? upstreamTool(row) : undefined;
}
