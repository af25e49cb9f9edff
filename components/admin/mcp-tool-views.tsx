import { FieldDiff } from "@/components/actions/field-diff";
import { JsonBlock } from "@/components/actions/section";
import { RevealedText } from "@/components/ui/revealed-text";
import type { McpToolTexts } from "@/components/admin/mcp-servers";
import type { McpServerView } from "@/lib/mcp/upstream/list-mcp-servers";

/**
 * A server's tools' texts (what its server wrote: description, input schema, changes since the
 * approved definition), revealed on the compute pool, by tool id, for McpServerCard.
 */
export function mcpToolTexts(server: McpServerView): Record<string, McpToolTexts> {
  return Object.fromEntries(
    server.tools.map((tool) => {
      const shown = tool.approved ?? tool.pending;
      return [tool.id, {
        description: shown?.description ? <RevealedText text={shown.description} /> : null,
        schema: shown ? <JsonBlock value={shown.inputSchema} label={`Input schema of ${tool.qualifiedName}`} /> : null,
        changes: tool.status !== "held" ? null : tool.changes ? (
          <FieldDiff changes={tool.changes} caption={`Changes to ${tool.qualifiedName}: approved definition → what its server lists now`} />
        ) : (
          <p role="note" className="text-amber-950">The changes were too large to list in time (or the server too busy): reload the page to try again before approving.</p>
        ),
      }];
    }),
  );
}
