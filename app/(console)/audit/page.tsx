import type { Metadata } from "next";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { EmptyState, PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Audit" };

export default async function AuditPage() {
  const member = await requirePageMember("audit:read", "/audit");
  const events = await getDb().auditEvent.findMany({
    where: { tenantId: member.tenant.id },
    select: { id: true, at: true, type: true, actorLabel: true, outcome: true, tool: true },
    orderBy: { id: "desc" },
    take: 50,
  });
  return (
    <>
      <PageHeader title="Audit" description="Every proposal, decision, refusal and execution, hash-chained." />
      {events.length === 0 ? (
        <EmptyState title="No events yet">Events appear as agents propose actions and reviewers decide them.</EmptyState>
      ) : (
        <table className="w-full rounded-lg border border-slate-200 bg-white text-left">
          <tbody>
            {events.map((e) => (
              <tr key={String(e.id)} className="border-t border-slate-100">
                <td className="px-3 py-1.5 font-mono text-xs">{e.at.toISOString()}</td>
                <td className="px-3 py-1.5">{e.type}</td>
                <td className="px-3 py-1.5">{e.actorLabel}</td>
                <td className="px-3 py-1.5">{e.tool ?? ""}</td>
                <td className="px-3 py-1.5">{e.outcome}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
