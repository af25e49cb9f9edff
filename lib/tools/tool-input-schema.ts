import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { ToolDefinition } from "@/lib/tools/tool";

/**
 * The JSON Schema of a tool's arguments, as models and MCP clients are given it: an upstream MCP
 * tool's pinned inputSchema as its server wrote it, or for a built-in tool the schema generated
 * from its zod `args` — what a caller must send (defaults stay optional), unknown keys refused.
 */
export function toolInputSchema(tool: ToolDefinition): JsonObject {
  if (tool.inputSchema) {
    const { $schema: _ignored, ...schema } = tool.inputSchema;
    return schema;
  }
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as JsonObject;
  return { ...schema, type: "object", additionalProperties: false };
}
