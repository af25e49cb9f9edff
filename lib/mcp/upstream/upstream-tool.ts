import { z } from "zod";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { McpToolRow } from "@/lib/db/statements/mcp/read-mcp-tool";
import { readMcpTools } from "@/lib/db/statements/mcp/read-mcp-tool";
import { AppError } from "@/lib/errors";
import { runCompute } from "@/lib/compute/compute-pool";
import { checkUpstreamArgsTask } from "@/lib/mcp/upstream/compute";
import { deliverUpstreamCall } from "@/lib/mcp/upstream/deliver-upstream-call";
import { classesFromAnnotations, type UpstreamDefinition } from "@/lib/mcp/upstream/tool-definition";
import { defineTool, type ToolDefinition } from "@/lib/tools/tool";

/** What an upstream call's approval rests on: the pinned definition, read from the database. */
const PinnedSnapshotSchema = z.object({
  serverId: z.string(),
  server: z.string(),
  tool: z.string(),
  definitionHash: z.string(),
});

/** Why a recorded upstream tool may not be called now, or null when it may. */
export function unavailableReason(row: Pick<McpToolRow, "qualifiedName" | "status">): string | null {
  if (row.status === "held") {
    return `The MCP tool ${row.qualifiedName} is held: its server now describes it differently from the definition an admin approved, and an admin must review the change (Admin → Upstream MCP servers) before it can be called.`;
  }
  if (row.status === "gone") return `The MCP tool ${row.qualifiedName} is no longer offered by its server, so it cannot be called.`;
  return null;
}

function firstLine(text: string | null, max: number): string {
  const line = (text ?? "").split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * An upstream MCP tool as a tool of the gate, from its pinned definition: its arguments are
 * checked against the pinned inputSchema; its classes (so its risk tags) come from the
 * annotations with the specification's defaults; the state its approval rests on is the pinned
 * definition itself, read again under lock before execution (so an admin's approval of a changed
 * definition between review and execution invalidates the approval); the effect is delivered
 * upstream after the claim commits, once, and only if the server still lists the pinned definition.
 */
/**
 * What an upstream call's approval rests on: the definition pinned now (`now`: its row as just
 * read, undefined when it is gone); throws not_found when it is no longer registered or usable.
 */
export function pinnedSnapshotOf(qualifiedName: string, now: McpToolRow | undefined): JsonObject {
  if (!now?.approved || !now.approvedHash) throw new AppError("not_found", `The MCP tool ${qualifiedName} is no longer registered.`, 404);
  const unavailable = unavailableReason(now);
  if (unavailable) throw new AppError("not_found", unavailable, 409);
  const pinned = now.approved as unknown as UpstreamDefinition;
  return {
    serverId: now.serverId,
    server: now.server,
    tool: now.name,
    definitionHash: now.approvedHash,
    title: pinned.title,
    description: pinned.description,
    annotations: (pinned.annotations ?? null) as JsonObject | null,
  };
}

export function upstreamTool(row: McpToolRow): ToolDefinition {
  if (!row.approved || !row.approvedHash) throw new Error(`MCP tool ${row.qualifiedName} has no approved definition.`);
  const definition = row.approved as unknown as UpstreamDefinition;
  const pinnedHash = row.approvedHash;
  const args = z.custom<JsonObject>((value) => typeof value === "object" && value !== null && !Array.isArray(value), {
    message: "The arguments must be a JSON object.",
  });
  // Sent to the pool's threads as text, which each parses and compiles once per definition.
  let schemaJson: string | undefined;
  const description = definition.description ?? definition.title ?? definition.annotations?.title ?? "";
  return defineTool({
    name: row.qualifiedName,
    kind: "tool",
    description: `${description}${description ? "\n\n" : ""}(Tool ${definition.name} of the MCP server ${row.server}, behind Countersign's approval gate.)`,
    classes: classesFromAnnotations(definition.annotations),
    args,
    inputSchema: definition.inputSchema,
    async checkArgs(callArgs) {
      schemaJson ??= JSON.stringify(definition.inputSchema);
      const problem = await runCompute(checkUpstreamArgsTask, { definitionHash: pinnedHash, schemaJson, args: callArgs }, { what: "arguments' check against the tool's input schema" });
      return problem === null ? null : `They do not match the tool's input schema: ${problem}`;
    },
    unlistedEffect: "require_approval",
    upstream: { server: row.server, tool: row.name },
    // The upstream resource it names is its own pinned definition (pinnedSnapshotOf: exactly these fields).
    restsOn: [{ entity: "upstream_tool", fields: ["serverId", "server", "tool", "definitionHash", "title", "description", "annotations"] }],
    async snapshot(ctx) {
      const [now] = await readMcpTools(ctx.q, { tenantId: ctx.tenantId, qualifiedName: row.qualifiedName, lock: ctx.lock });
      return pinnedSnapshotOf(row.qualifiedName, now);
    },
    // The arguments were checked against this definition's schema: a snapshot that pins another (an
    // admin approved a change between this tool's read and the snapshot's) is not what they fit.
    stateChecks: (_args, snapshot) => {
      const pinned = PinnedSnapshotSchema.safeParse(snapshot);
      return pinned.success && pinned.data.definitionHash === pinnedHash ? [] : [{
        id: "state.definition_changed",
        reason: `The approved definition of ${row.qualifiedName} changed while this call was assessed, so its arguments were checked against another schema; send it again.`,
        fields: [],
      }];
    },
    preview: (callArgs) => ({
      summary: `Call ${definition.name} on the MCP server ${row.server}${description ? `: ${firstLine(description, 140)}` : ""}`,
      before: null,
      after: callArgs,
    }),
    async apply(ctx) {
      const verified = PinnedSnapshotSchema.safeParse(ctx.verified);
      if (!verified.success) throw new Error(`The claim of an upstream call for ${row.qualifiedName} verified no pinned definition.`);
      // This definition was read before the claim locked the row: if an approval came between, the
      // arguments were checked against a schema that is no longer the pinned one.
      if (verified.data.definitionHash !== pinnedHash) return { stateChanged: `The approved definition of ${row.qualifiedName} changed.` };
      return { ok: true, result: { ...verified.data }, deliver: true };
    },
    deliver: (ctx, callArgs) => deliverUpstreamCall(ctx, { qualifiedName: row.qualifiedName, args: callArgs }),
  });
}
