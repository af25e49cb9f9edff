import { DataTable } from "@/components/ui/data-table";

export type CatalogTool = {
  name: string;
  /** "built-in", or the MCP server it comes from. */
  source: string;
  classes: string[];
  /** Rules the policy in force has for it; null when the policy does not name it. */
  rules: number | null;
  /** What happens to it while the policy does not name it. */
  unlisted: "deny" | "require_approval";
};

/** Every tool of the organisation beside the policy editor: what the policy says for each, and what it would without a rule. */
export function ToolCatalog({ tools }: { tools: CatalogTool[] }) {
  return (
    <DataTable caption="Tools of this organisation" captionClassName="mb-1 text-left text-sm font-semibold" headCellClassName="px-2 py-1.5"
      columns={["Tool", "From", "Classes", "In the policy"]}>
      {tools.map((tool) => (
        <tr key={tool.name} className="border-t border-slate-100 align-top">
          <th scope="row" className="px-2 py-1.5 text-left font-mono text-xs font-medium">{tool.name}</th>
          <td className="px-2 py-1.5 text-xs">{tool.source === "built-in" ? "built-in" : <>MCP server <code>{tool.source}</code></>}</td>
          <td className="px-2 py-1.5 text-xs">{tool.classes.join(", ")}</td>
          <td className="px-2 py-1.5 text-xs">
            {tool.rules !== null
              ? `${tool.rules} rule${tool.rules === 1 ? "" : "s"}`
              : tool.unlisted === "require_approval"
                ? "no rule: every call needs approval (defaults)"
                : "not listed: denied"}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
