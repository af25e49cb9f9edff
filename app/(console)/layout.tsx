import { hasPermission, navigationFor } from "@/lib/roles/permissions";
import { readAgentsPause } from "@/lib/agents-pause/read-agents-pause";
import { getDb } from "@/lib/db/client";
import { AgentsPausedBanner } from "@/components/shell/agents-paused-banner";
import { requirePageMember } from "@/lib/server/acting-member";
import { ConsoleHeader } from "@/components/shell/console-header";

export default async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const member = await requirePageMember();
  const pause = await readAgentsPause(getDb(), member.tenant.id);
  return (
    <div className="min-h-screen">
      <ConsoleHeader
        user={member.user}
        tenant={member.tenant}
        roles={member.roles}
        memberships={member.memberships}
        navigation={navigationFor(member.roles).map(({ href, label }) => ({ href, label }))}
      />
      {pause && <AgentsPausedBanner pause={pause} canResume={hasPermission(member.roles, "admin:manage")} />}
      <main className="mx-auto max-w-7xl px-4 py-6">{children}</main>
    </div>
  );
}
