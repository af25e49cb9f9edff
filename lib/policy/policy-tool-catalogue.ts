import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { Queryable } from "@/lib/db/sql";
import { readMcpTools } from "@/lib/db/statements/mcp/read-mcp-tool";
import type { UpstreamDefinition } from "@/lib/mcp/upstream/tool-definition";
import { TOOLS } from "@/lib/tools/registry";

/** A tool a policy may name, with the JSON Schema of the arguments its conditions read. */
export type PolicyToolInfo = { name: string; kind: "tool" | "code"; source: "built-in" | "mcp"; status?: string; inputSchema: JsonObject | null };
export type PolicyToolCatalogue = { tools: PolicyToolInfo[] };

/** The built-in tools, with the schema of their arguments as parsed (what the policy sees: defaults filled in). */
export function builtInToolCatalogue(): PolicyToolCatalogue {
  return {
    tools: TOOLS.map((tool) => ({
      name: tool.name, kind: tool.kind, source: "built-in" as const,
      inputSchema: z.toJSONSchema(tool.args, { io: "output", unrepresentable: "any" }) as JsonObject,
    })),
  };
}

/**
 * The tools the tenant's policy may name: built-ins, and every upstream MCP tool with a pinned
 * definition (approved, held or gone: a rule for a held tool is still checked against the
 * definition an admin approved).
 */
export async function policyToolCatalogue(q: Queryable, tenantId: string): Promise<PolicyToolCatalogue> {
  const rows = await readMcpTools(q, { tenantId });
  const upstream = rows.map((row): PolicyToolInfo => {
    const definition = row.approved as unknown as UpstreamDefinition | null;
    return { name: row.qualifiedName, kind: "tool", source: "mcp", status: row.status, inputSchema: (definition?.inputSchema as JsonObject | undefined) ?? null };
  });
  return { tools: [...builtInToolCatalogue().tools, ...upstream] };
}
