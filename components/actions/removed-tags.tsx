import type { RemovedTag } from "@/lib/approvals/payload-diff";

const TONE = {
  low: "text-emerald-900",
  medium: "text-amber-950",
  high: "text-orange-950",
  critical: "text-red-950",
} as const;

/** The risk tags the previous revision had and this one has not, each with its field. */
export function RemovedTags({ tags, fromRevision }: { tags: RemovedTag[]; fromRevision: number }) {
  const heading = `Tags removed by this edit (${tags.length})`;
  return (
    <div role="note" aria-label="Tags removed by this edit" className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
      <h3 className="text-xs font-semibold">{heading}</h3>
      {tags.length === 0 ? (
        <p>None: every risk tag of revision {fromRevision} still applies.</p>
      ) : (
        <>
          <p className="mb-1">Revision {fromRevision} had these tags and this revision has not. Check the change below removed the risk, not just its sign.</p>
          <ul className="space-y-0.5">
            {tags.map((t) => (
              <li key={`${t.id}-${t.path ?? ""}`}>
                <span className={`text-xs font-bold uppercase tracking-wide ${TONE[t.severity]}`}>{t.severity}</span>{" "}
                <span className="font-mono text-[0.8rem] font-medium">{t.id}</span>
                <span className="text-xs"> · {t.path ? `field ${t.path}` : "the untrusted text the agent read"}</span>
                <span className="block text-[0.8rem]">{t.reason}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
