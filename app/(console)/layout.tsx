import { navigationFor } from "@/lib/auth/permissions";
import { requirePageMember } from "@/lib/server/acting-member";
import { ConsoleHeader } from "@/components/shell/console-header";

export default async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const member = await requirePageMember();
  return (
    <div className="min-h-screen">
      <ConsoleHeader
        user={member.user}
        tenant={member.tenant}
        roles={member.roles}
        memberships={member.memberships}
        navigation={navigationFor(member.roles).map(({ href, label }) => ({ href, label }))}
      />
      <main className="mx-auto max-w-7xl px-4 py-6">{children}</main>
    </div>
  );
}
