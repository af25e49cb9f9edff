import type { Metadata } from "next";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const member = await requirePageMember("admin:manage", "/admin");
  const members = await getDb().membership.findMany({
    where: { tenantId: member.tenant.id },
    select: { id: true, roles: true, user: { select: { email: true, name: true } } },
    orderBy: { user: { email: "asc" } },
  });
  return (
    <>
      <PageHeader title="Admin" description={`Members, roles, tool policies and API keys of ${member.tenant.name}.`} />
      <section aria-labelledby="members-heading" className="rounded-lg border border-slate-200 bg-white">
        <h2 id="members-heading" className="border-b border-slate-200 px-4 py-2 font-semibold">Members</h2>
        <table className="w-full text-left">
          <thead className="text-xs uppercase text-slate-500">
            <tr><th className="px-4 py-2">Name</th><th className="px-4 py-2">Email</th><th className="px-4 py-2">Roles</th></tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.id} className="border-t border-slate-100">
                <td className="px-4 py-2">{m.user.name}</td>
                <td className="px-4 py-2 font-mono text-xs">{m.user.email}</td>
                <td className="px-4 py-2">{m.roles.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
