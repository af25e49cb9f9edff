import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Queryable } from "@/lib/db/sql";
import { toolSpecsForModel } from "@/lib/agent/tool-specs";
import { TOOLS } from "@/lib/tools/registry";
import type { ToolClass, ToolDefinition } from "@/lib/tools/tool";

/** The key a gateway request acts for: which tools it may propose. */
export type GatewayKey = { id: string; allowedTools: string[] };

/**
 * A tool as an MCP client sees it (`tools/list`), and what a call needs to propose it: its name
 * is the name proposals carry, and `kind` says whether its arguments are a code block.
 */
export type GatewayTool = Tool & { kind: ToolDefinition["kind"] };

/**
 * The tools this key may propose in its tenant: the tenant's tools the key names, each with the
 * JSON Schema of its arguments (from the tool's own zod schema, as the model sees it). Every
 * gateway path — listing and calling — asks this one function.
 */
export async function gatewayTools(_q: Queryable, _tenantId: string, key: GatewayKey): Promise<GatewayTool[]> {
  const allowed = new Set(key.allowedTools);
  const tools = TOOLS.filter((tool) => allowed.has(tool.name));
  const specs = toolSpecsForModel(tools);
  return tools.map((tool, i): GatewayTool => {
    const spec = specs[i];
    const parameters = spec.type === "function" ? spec.function.parameters : undefined;
    return {
      name: tool.name,
      kind: tool.kind,
      description: `${tool.description} Every call goes through Countersign's approval gate: it may run at once, wait for a reviewer, or be refused with the reason.`,
      inputSchema: { ...parameters, type: "object" },
      annotations: annotationsFor(tool.classes),
    };
  });
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
