import Link from "next/link";
import type { TenantMembership } from "@/lib/auth/acting-member";
import { NavLinks } from "@/components/shell/nav-links";
import { TenantSwitcher } from "@/components/shell/tenant-switcher";

export function ConsoleHeader({
  user,
  tenant,
  roles,
  memberships,
  navigation,
}: {
  user: { email: string; name: string };
  tenant: { id: string; name: string };
  roles: string[];
  memberships: TenantMembership[];
  navigation: Array<{ href: string; label: string }>;
}) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" className="font-semibold tracking-tight">Countersign</Link>
        <nav aria-label="Main">
          <NavLinks items={navigation} />
        </nav>
        <div className="ml-auto flex flex-wrap items-center gap-3 text-slate-600">
          <TenantSwitcher current={tenant.id} memberships={memberships} />
          <span title={user.email}>
            <span className="font-medium text-slate-900">{user.name}</span>{" "}
            <span className="text-xs">({roles.join(", ")})</span>
          </span>
          <Link href="/account" className="font-medium text-indigo-700 hover:underline">Account</Link>
          <Link href="/signout" className="font-medium text-indigo-700 hover:underline">Sign out</Link>
        </div>
      </div>
    </header>
  );
}
