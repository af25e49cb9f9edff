import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Queryable } from "@/lib/db/sql";
import { toolsForTenant } from "@/lib/tools/tenant-tools";
import type { ToolClass } from "@/lib/risk/risk-tags-for";
import type { ToolDefinition } from "@/lib/tools/tool";
import { toolInputSchema } from "@/lib/tools/tool-input-schema";

/** The key a gateway request acts for: which tools it may propose. */
export type GatewayKey = { id: string; allowedTools: string[] };

/**
 * A tool as an MCP client sees it (`tools/list`), and what a call needs to propose it: its name
 * is the name proposals carry, and `kind` says whether its arguments are a code block.
 */
export type GatewayTool = Tool & { kind: ToolDefinition["kind"] };

/**
 * The tools this key may propose in its tenant — built-in tools and the approved tools of the
 * tenant's upstream MCP servers — that the key names, each with the JSON Schema of its arguments
 * as the model sees it. Every gateway path — listing and calling — asks this one function.
 */
export async function gatewayTools(q: Queryable, tenantId: string, key: GatewayKey): Promise<GatewayTool[]> {
  const allowed = new Set(key.allowedTools);
  const tools = (await toolsForTenant(q, tenantId)).filter((tool) => allowed.has(tool.name));
  return tools.map((tool): GatewayTool => ({
    name: tool.name,
    kind: tool.kind,
    description: `${tool.description} Every call goes through Countersign's approval gate: it may run at once, wait for a reviewer, or be refused with the reason.`,
    inputSchema: { ...toolInputSchema(tool), type: "object" },
    annotations: annotationsFor(tool.classes),
  }));
}

/** MCP's behaviour hints, from the classes the risk tags read. Hints only: the gate decides. */
function annotationsFor(classes: readonly ToolClass[]): Tool["annotations"] {
  const readOnly = classes.every((c) => c === "read" || c === "pii");
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && classes.some((c) => c === "irreversible" || c === "financial"),
    // Code runs in a sandbox without network; only email reaches the outside world.
    openWorldHint: classes.includes("external-comms"),
  };
}
