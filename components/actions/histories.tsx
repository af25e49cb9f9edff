import type { DecisionView, RevisionView } from "@/lib/review/action-detail";
import { formatUtcTime } from "@/components/actions/format";

/** Every vote on every revision; votes on superseded revisions are void, and votes that no longer count, say so. */
export function DecisionHistory({ decisions }: { decisions: DecisionView[] }) {
  if (decisions.length === 0) return <p className="text-slate-600">No decisions yet.</p>;
  return (
    <ol className="space-y-2">
      {decisions.map((d) => (
        <li key={d.id} className={`text-[0.85rem] ${d.void ? "border-l-2 border-slate-300 pl-2" : ""}`}>
          <div className="flex flex-wrap items-baseline gap-x-2">
            <span className={`rounded px-1.5 py-0.5 text-xs font-semibold ${d.verdict === "approve" ? "bg-emerald-50 text-emerald-800" : "bg-red-50 text-red-800"}`}>
              {d.verdict === "approve" ? "Approved" : "Rejected"}
            </span>
            <span className="font-medium">{d.reviewer}</span>
            <span className="text-xs text-slate-600">revision {d.revision} · {formatUtcTime(d.createdAt)}</span>
            {d.void && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-700">void — revision superseded</span>}
            {!d.void && !d.counts && (
              <span className="rounded bg-amber-50 px-1.5 text-xs text-amber-900">
                no longer counts — the reviewer may not decide it now{d.signedWith ? ", or the passkey was removed" : ""}
              </span>
            )}
          </div>
          {d.note && <p className="mt-0.5 whitespace-pre-wrap break-words text-slate-700">“{d.note}”</p>}
          {d.signedWith && (
            <p className="mt-0.5 text-xs text-slate-700">
              Signed with passkey <span className="font-medium">{d.signedWith.passkeyName}</span>
              {d.signedWith.userVerified ? " (user verified)" : ""} · receipt <span className="break-all font-mono">{d.signedWith.receiptHash}</span>
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}

export function RevisionHistory({ revisions }: { revisions: RevisionView[] }) {
  return (
    <ol className="space-y-1.5">
      {revisions.map((r) => (
        <li key={r.id} className="text-[0.85rem]">
          <span className="font-medium">Revision {r.revision}</span>{" "}
          <span className={`rounded px-1.5 text-xs ${r.status === "current" ? "bg-sky-50 text-sky-900" : "bg-slate-100 text-slate-700"}`}>{r.status}</span>
          <p className="text-xs text-slate-600">
            {r.origin} · {formatUtcTime(r.createdAt)} · <span className="font-mono" title={r.payloadHash}>{r.payloadHash.slice(0, 12)}…</span>
          </p>
        </li>
      ))}
    </ol>
  );
}
