import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { EmptyState, PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Review queue" };

export default async function QueuePage() {
  const member = await requirePageMember("queue:review", "/queue");
  const pending = await getDb().action.findMany({
    where: { tenantId: member.tenant.id, status: "pending", eligibleRoles: { hasSome: member.roles } },
    select: { id: true, tool: true, requesterLabel: true, riskLevel: true, expiresAt: true },
    orderBy: [{ riskRank: "desc" }, { expiresAt: "asc" }],
    take: 100,
  });
  return (
    <>
      <PageHeader title="Review queue" description="Pending actions you may decide, riskiest and soonest-expiring first." />
      {pending.length === 0 ? (
        <EmptyState title="Nothing waits for you">New actions that need approval appear here.</EmptyState>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
          {pending.map((a) => (
            <li key={a.id} className="flex items-center justify-between px-4 py-2">
              <Link href={`/actions/${a.id}`} className="font-medium text-indigo-700 hover:underline">{a.tool}</Link>
              <span>{a.requesterLabel} · {a.riskLevel}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
