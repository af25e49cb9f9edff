import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { listMcpServers, mcpServerRow } from "@/lib/mcp/upstream/list-mcp-servers";
import { allowedStdioCommands } from "@/lib/mcp/upstream/server-config";
import { requirePageMember } from "@/lib/server/acting-member";
import { EmptyState, PageHeader } from "@/components/shell/page-header";
import { McpServerCard, RegisterMcpServer } from "@/components/admin/mcp-servers";
import { mcpToolTexts } from "@/components/admin/mcp-tool-views";
import { approveMcpToolAction, refreshMcpServerAction, registerMcpServerAction, removeMcpServerAction, replaceMcpServerSecretsAction } from "./actions";
import { PageSection } from "@/components/shell/page-section";

export const metadata: Metadata = { title: "MCP servers" };

export default async function McpServersPage() {
  const member = await requirePageMember("admin:manage", "/admin/mcp");
  const servers = await listMcpServers(getDb(), member.tenant.id);
  const actions = {
    register: registerMcpServerAction, refresh: refreshMcpServerAction, approve: approveMcpToolAction,
    remove: removeMcpServerAction, replaceSecrets: replaceMcpServerSecretsAction,
  };
  return (
    <>
      <PageHeader
        title="MCP servers"
        description={`Upstream MCP servers of ${member.tenant.name}, behind the approval gate. Agents can propose a tool once an admin approves its definition; if its server later describes it differently, it is held until an admin approves the change.`}
      >
        <Link href="/admin" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Back to admin</Link>
      </PageHeader>
      <div className="space-y-5">
        <PageSection id="register" title="Register a server" description={<>
          Its tools are named <code>&lt;server&gt;__&lt;tool&gt;</code> in policies, API keys and agents. Without a policy rule for one, every call needs a reviewer&apos;s approval.
        </>}>
          <RegisterMcpServer stdioCommands={allowedStdioCommands()} register={actions.register} />
        </PageSection>
        {servers.length === 0 ? (
          <EmptyState title="No MCP servers yet">Register one above; its tools appear here for approval.</EmptyState>
        ) : (
          servers.map((server) => <McpServerCard key={server.id} server={mcpServerRow(server)} toolTexts={mcpToolTexts(server)} actions={actions} />)
        )}
      </div>
    </>
  );
}
