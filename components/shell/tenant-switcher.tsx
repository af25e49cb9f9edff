import type { TenantMembership } from "@/lib/auth/acting-member";
import { switchTenantFromForm } from "@/app/(console)/tenant-actions";

export function TenantSwitcher({ current, memberships }: { current: string; memberships: TenantMembership[] }) {
  if (memberships.length < 2) {
    return <span className="font-medium text-slate-900">{memberships[0]?.name}</span>;
  }
  return (
    <form action={switchTenantFromForm} className="flex items-center gap-1">
      <label htmlFor="tenant-switch" className="sr-only">Organisation</label>
      <select id="tenant-switch" name="tenantId" defaultValue={current}
        className="rounded-md border border-slate-300 bg-white px-2 py-1 text-slate-900">
        {memberships.map((m) => (
          <option key={m.tenantId} value={m.tenantId}>{m.name}</option>
        ))}
      </select>
      <button type="submit" className="rounded-md border border-slate-300 px-2 py-1 hover:bg-slate-50">Switch</button>
    </form>
  );
}
