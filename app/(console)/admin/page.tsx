import type { Metadata } from "next";
import Link from "next/link";
import { listApiKeys } from "@/lib/api-keys/list-api-keys";
import { getDb } from "@/lib/db/client";
import { listMembers } from "@/lib/members/list-members";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { listPolicyVersions, readPolicyVersion } from "@/lib/policy/save-policy";
import { requirePageMember } from "@/lib/server/acting-member";
import { toolsForTenant } from "@/lib/tools/tenant-tools";
import type { Policy } from "@/lib/policy/policy-document";
import { PageHeader } from "@/components/shell/page-header";
import { PageSection } from "@/components/shell/page-section";
import { ApiKeys } from "@/components/admin/api-keys";
import { MemberRoles } from "@/components/admin/member-roles";
import { PolicyEditor } from "@/components/admin/policy-editor";
import { PolicyHistory } from "@/components/admin/policy-history";
import { ToolCatalog } from "@/components/admin/tool-catalog";
import { AgentsPause } from "@/components/admin/agents-pause";
import { readAgentsPause } from "@/lib/agents-pause/read-agents-pause";
import { listGrants } from "@/lib/grants/list-grants";
import { Grants } from "@/components/admin/grants";
import {
  createApiKeyAction, revokeApiKeyAction, revokeGrantAction, savePolicyAction, setAgentsPausedAction, setApiKeyPausedAction, setMemberRolesAction, validatePolicyAction,
} from "./actions";
import { dryRunPolicyAction, testPolicyAction } from "./policy-actions";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const member = await requirePageMember("admin:manage", "/admin");
  const db = getDb();
  const [members, versions, inForce, keys, tools, pause, grants] = await Promise.all([
    listMembers(db, member.tenant.id),
    listPolicyVersions(db, member.tenant.id),
    readPolicyVersion(db, member.tenant.id, null),
    listApiKeys(db, member.tenant.id),
    toolsForTenant(db, member.tenant.id),
    readAgentsPause(db, member.tenant.id),
    listGrants(db, member.tenant.id),
  ]);
  const currentDocument = inForce ? inForce.document : DEFAULT_POLICY;
  const policyTools = (currentDocument as Partial<Policy>).tools ?? {};
  return (
    <>
      <PageHeader title="Admin" description={`Members, roles, tool policies and API keys of ${member.tenant.name}. Every change is audited.`}>
        <span className="flex gap-4">
          <Link href="/admin/webhooks" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Webhooks</Link>
          <Link href="/admin/slack" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Slack</Link>
          <Link href="/admin/mcp" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Upstream MCP servers</Link>
        </span>
      </PageHeader>
      <div className="space-y-5">
        <PageSection id="stop" title="Stop agents" description="Pauses every agent at once: proposals are refused, approved actions wait unexecuted and tasks stop before their next tool call, until you resume; every standing grant is revoked. Single API keys can be paused below.">
          <AgentsPause
            paused={pause && { at: pause.at.toISOString(), by: pause.by, reason: pause.reason }}
            setPaused={setAgentsPausedAction}
          />
        </PageSection>
        <PageSection id="members" title="Members and roles" description="Roles are per organisation; one person may hold several. The last admin keeps the admin role.">
          <MemberRoles members={members} selfUserId={member.user.id} setRoles={setMemberRolesAction} />
        </PageSection>
        <PageSection id="policy" title="Tool policy" description="What runs at once, what waits for which reviewers, and what is refused. Validated before saving; every save is a new version.">
          <div className="grid grid-cols-1 gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
            <PolicyEditor
              baseVersion={inForce?.version ?? 0}
              initialText={JSON.stringify(currentDocument, null, 2)}
              validate={validatePolicyAction}
              save={savePolicyAction}
              tools={tools.map((tool) => tool.name)}
              dryRun={dryRunPolicyAction}
              test={testPolicyAction}
            />
            <div className="space-y-4">
              <ToolCatalog
                tools={tools.map((tool) => ({
                  name: tool.name, source: tool.upstream?.server ?? "built-in", classes: tool.classes,
                  rules: Object.hasOwn(policyTools, tool.name) ? policyTools[tool.name].rules.length : null,
                  unlisted: tool.unlistedEffect ?? "deny",
                }))}
              />
              <p className="text-xs text-slate-600">
                Tools of upstream MCP servers appear here once an admin approves them under <Link href="/admin/mcp" className="underline">MCP servers</Link>.
              </p>
              <div>
                <h3 className="mb-1 text-sm font-semibold">Version history</h3>
                <PolicyHistory versions={versions} />
              </div>
            </div>
          </div>
        </PageSection>
        <PageSection id="api-keys" title="API keys" description="For external agents calling /api/v1. The secret is shown once; only its hash is stored. Revoking takes effect at once.">
          <ApiKeys
            keys={keys.map((k) => ({
              id: k.id, name: k.name, prefix: k.prefix, allowedTools: k.allowedTools, createdAt: k.createdAt.toISOString(),
              lastUsedAt: k.lastUsedAt?.toISOString() ?? null, revokedAt: k.revokedAt?.toISOString() ?? null, pausedAt: k.pausedAt?.toISOString() ?? null,
              grantsInForce: grants.filter((g) => g.apiKeyId === k.id && g.state === "active").length,
            }))}
            tools={tools.map((t) => t.name)}
            create={createApiKeyAction}
            revoke={revokeApiKeyAction}
            setPaused={setApiKeyPausedAction}
          />
        </PageSection>
        <PageSection id="grants" title="Standing grants" description="Calls reviewers approved in advance with an action: same key (or task) and tool, arguments within the constraint, up to the limits, until the expiry. Revoking takes effect at once; Stop agents revokes them all.">
          <Grants grants={grants} revoke={revokeGrantAction} />
        </PageSection>
      </div>
    </>
  );
}
