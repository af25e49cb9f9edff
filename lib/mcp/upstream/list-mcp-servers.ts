import type { JsonObject } from "@/lib/canonical/json-value";
import type { DbTx } from "@/lib/db/client";
import type { FieldChange } from "@/lib/approvals/payload-diff";
import { runCompute } from "@/lib/compute/compute-pool";
import { diffRevisionTask } from "@/lib/approvals/compute";
import { isAppError } from "@/lib/errors";
import { classesFromAnnotations, effectiveHints, type UpstreamDefinition } from "@/lib/mcp/upstream/tool-definition";
import type { ToolClass } from "@/lib/risk/risk-tags-for";
import type { McpServerRow as StoredMcpServer } from "@/lib/db/statements/mcp/read-mcp-server";
import type { StoredMcpTool } from "@/lib/db/statements/mcp/lock-mcp-tools-of-server";

export type McpToolView = Pick<StoredMcpTool, "id" | "name" | "qualifiedName" | "status" | "pendingHash"> & {
  /** What agents and reviewers see (the pinned definition), or null before the first approval. */
  approved: UpstreamDefinition | null;
  approvedAt: string | null;
  /** What the server lists, when it is not the pinned definition: an admin approves exactly this hash. */
  pending: UpstreamDefinition | null;
  /**
   * Held tools: the pinned definition against what the server lists now; null when it could not be
   * computed (too large for its time on the compute pool, or the pool too busy).
   */
  changes: FieldChange[] | null;
  /** The hints as the specification defaults them, and the classes (risk) they give the tool. */
  hints: ReturnType<typeof effectiveHints>;
  classes: ToolClass[];
  seenAt: string;
};

export type McpServerView = Pick<StoredMcpServer, "id" | "name" | "transport" | "url" | "command" | "args"> & {
  /** Names only: a value never leaves the server. */
  secretNames: string[];
  createdAt: string;
  listedAt: string | null;
  listError: string | null;
  tools: McpToolView[];
};

/**
 * What the browser gets of a tool: no definition (the page renders a tool's description, schema and
 * changes on the server, components/admin/mcp-tool-views.tsx), since a server writes each of them.
 */
export type McpToolRow = Omit<McpToolView, "approved" | "pending" | "changes"> & { hasApproved: boolean };
export type McpServerRow = Omit<McpServerView, "tools"> & { tools: McpToolRow[] };

export function mcpServerRow(server: McpServerView): McpServerRow {
  return {
    ...server,
    tools: server.tools.map(({ approved, pending: _pending, changes: _changes, ...tool }) => ({ ...tool, hasApproved: approved !== null })),
  };
}

/** The tenant's upstream servers and their tools, for its admins: never a secret's value. */
export async function listMcpServers(db: DbTx, tenantId: string): Promise<McpServerView[]> {
  const servers = await db.mcpServer.findMany({
    where: { tenantId },
    orderBy: { name: "asc" },
    select: {
      id: true, name: true, transport: true, url: true, command: true, args: true, secretNames: true, createdAt: true, listedAt: true, listError: true,
      tools: {
        where: { tenantId },
        orderBy: { name: "asc" },
        select: { id: true, name: true, qualifiedName: true, status: true, approved: true, approvedAt: true, pending: true, pendingHash: true, seenAt: true },
      },
    },
  });
  // An untrusted server writes both definitions (up to MAX_DEFINITION_CHARS each, for up to
  // MAX_LISTED_TOOLS tools): their diffs run on the compute pool, never on the request thread.
  const changes = new Map(
    await Promise.all(
      servers.flatMap((server) => server.tools).flatMap((tool) =>
        tool.approved && tool.pending ? [definitionChanges(tool.approved as unknown as JsonObject, tool.pending as unknown as JsonObject).then((c) => [tool.id, c] as const)] : [],
      ),
    ),
  );
  return servers.map((server) => ({
    id: server.id, name: server.name, transport: server.transport, url: server.url, command: server.command, args: server.args,
    secretNames: server.secretNames, createdAt: server.createdAt.toISOString(), listedAt: server.listedAt?.toISOString() ?? null, listError: server.listError,
    tools: server.tools.map((tool): McpToolView => {
      const approved = (tool.approved as unknown as UpstreamDefinition | null) ?? null;
      const pending = (tool.pending as unknown as UpstreamDefinition | null) ?? null;
      const shown = approved ?? pending;
      return {
        id: tool.id, name: tool.name, qualifiedName: tool.qualifiedName, status: tool.status, approved, approvedAt: tool.approvedAt?.toISOString() ?? null,
        pending, pendingHash: tool.pendingHash,
        changes: changes.get(tool.id) ?? [],
        hints: effectiveHints(shown?.annotations ?? null), classes: classesFromAnnotations(shown?.annotations ?? null), seenAt: tool.seenAt.toISOString(),
      };
    }),
  }));
}

/** The approved definition against the one its server lists now, field by field; null past its budget. */
async function definitionChanges(approved: JsonObject, pending: JsonObject): Promise<FieldChange[] | null> {
  try {
    const diff = await runCompute(diffRevisionTask, { before: approved, after: pending, prefix: "", words: false, code: null }, { what: "definition diff" });
    return diff.fields;
  } catch (error) {
    if (isAppError(error) && (error.code === "too_complex" || error.code === "busy")) return null;
    throw error;
  }
}
