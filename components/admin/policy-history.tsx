import Link from "next/link";
import { formatUtc } from "@/components/ui/format";
import type { PolicyVersionSummary } from "@/lib/policy/save-policy";

export function PolicyHistory({ versions }: { versions: PolicyVersionSummary[] }) {
  if (versions.length === 0) return <p className="text-sm text-slate-600">No saved versions: the built-in default policy is in force. Saving creates version 1.</p>;
  return (
    <ol className="divide-y divide-slate-100 text-sm" aria-label="Policy versions, newest first">
      {versions.map((v, i) => (
        <li key={v.id} className="py-1.5">
          <Link href={`/admin/policy/${v.version}`} className="font-medium text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Version {v.version}</Link>
          {i === 0 && <span className="ml-2 rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800 ring-1 ring-inset ring-emerald-600/30">in force</span>}
          <span className="ml-2 text-xs text-slate-600">{formatUtc(v.createdAt, false)} · {v.createdBy ?? "seeded"}</span>
          {v.comment && <span className="ml-2 text-slate-700">— {v.comment}</span>}
        </li>
      ))}
    </ol>
  );
}
