import Link from "next/link";
import { RiskBadge, StatusBadge } from "@/components/ui/badges";
import { formatUtc } from "@/components/ui/format";
import type { AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";
import type { RiskLevelName } from "@/components/ui/badges";
import { DataTable } from "@/components/ui/data-table";

const OUTCOME_STYLE: Record<string, string> = {
  ok: "text-emerald-800",
  refused: "text-orange-800 font-semibold",
  error: "text-red-800 font-semibold",
};

export function AuditTable({ events, reviewerEmail }: { events: AuditEventRow[]; reviewerEmail: Map<string, string> }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <DataTable caption="Audit events, newest first" className="w-full text-left text-xs" headCellClassName="px-2 py-2"
        columns={["#", "Time (UTC)", "Event", "Outcome", "Actor", "Tool", "Risk", "Decision", "Status", "Requester", "Details"]}>
        {events.map((e) => (
          <tr key={String(e.id)} className="border-t border-slate-100 align-top" data-testid="audit-row">
            <td className="px-2 py-1.5 font-mono text-xs text-slate-500">{e.seq === null ? "…" : String(e.seq)}</td>
            <td className="whitespace-nowrap px-2 py-1.5 font-mono text-xs">{formatUtc(e.at).replace(" UTC", "")}</td>
            <td className="whitespace-nowrap px-2 py-1.5 font-medium">{e.type}</td>
            <td className={`px-2 py-1.5 ${OUTCOME_STYLE[e.outcome] ?? ""}`}>{e.outcome}</td>
            <td className="max-w-40 truncate px-2 py-1.5" title={e.actorLabel}>{e.actorLabel}</td>
            <td className="px-2 py-1.5 font-mono text-xs">{e.tool ?? ""}</td>
            <td className="px-2 py-1.5">{e.riskLevel ? <RiskBadge level={e.riskLevel as RiskLevelName} className="whitespace-nowrap" /> : ""}</td>
            <td className="px-2 py-1.5">
              {e.verdict === "approve" ? <span className="text-emerald-800">approved</span> : e.verdict === "reject" ? <span className="text-red-800">rejected</span> : ""}
              {e.reviewerId && <span className="block text-xs text-slate-600">{reviewerEmail.get(e.reviewerId) ?? "former member"}</span>}
            </td>
            <td className="px-2 py-1.5">{e.status ? <StatusBadge status={e.status} className="whitespace-nowrap" /> : ""}</td>
            <td className="max-w-36 truncate px-2 py-1.5" title={e.requester ?? ""}>{e.requester ?? ""}</td>
            <td className="whitespace-nowrap px-2 py-1.5">
              {e.actionId && <Link className="mr-2 inline-flex min-h-6 min-w-6 items-center text-indigo-700 hover:underline" href={`/actions/${e.actionId}`}>action</Link>}
              <details className="inline">
                <summary className="inline-flex min-h-6 min-w-6 cursor-pointer items-center text-xs text-slate-600">data</summary>
                <pre className="mt-1 max-w-md overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs ring-1 ring-slate-200">{JSON.stringify(e.data, null, 2)}</pre>
                <p className="font-mono text-[11px] text-slate-500">{e.leafHash ? `leaf ${e.leafHash.slice(0, 20)}…` : "sealing into the tree…"}</p>
              </details>
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
