import type { RiskTag } from "@/lib/risk/risk-tag";
import { groupRiskTags, moreFieldsText } from "@/lib/risk/group-risk-tags";
import { quoteOnce } from "@/lib/risk/quote-once";
import { RevealedText } from "@/components/ui/revealed-text";

const TONE = {
  low: "border-emerald-300 bg-emerald-50 text-emerald-900",
  medium: "border-amber-300 bg-amber-50 text-amber-950",
  high: "border-orange-300 bg-orange-50 text-orange-950",
  critical: "border-red-300 bg-red-50 text-red-950",
} as const;

const SOURCE = { class: "tool class", argument: "argument", provenance: "provenance", injection: "injected instruction", scan: "code scan", text: "hidden or deceptive text", state: "arguments vs state" } as const;

/** How many findings RiskTagList lists for these tags (tags of one id are one finding). */
export function riskFindingCount(tags: RiskTag[]): number {
  return groupRiskTags(tags).length;
}

/** Risk tags with their severity in colour AND words, and the one-line reason; each untrusted passage quoted once. */
export function RiskTagList({ tags }: { tags: RiskTag[] }) {
  if (tags.length === 0) return <p className="text-slate-600">No risk tags.</p>;
  const grouped = groupRiskTags(tags);
  const quotes = quoteOnce(grouped);
  return (
    <ul className="space-y-1.5">
      {grouped.map((tag, i) => (
        <li key={`${tag.id}-${tag.path ?? ""}-${tag.line ?? ""}-${i}`} className={`rounded-md border-l-4 px-3 py-1.5 ${TONE[tag.severity]}`}>
          <div className="flex flex-wrap items-baseline gap-x-2">
            <span className="text-xs font-bold uppercase tracking-wide">{tag.severity}</span>
            <span className="font-mono text-[0.8rem] font-medium">{tag.id}</span>
            <span className="text-xs">
              {SOURCE[tag.source] ?? tag.source}
              {tag.path ? ` · ${tag.path}` : ""}
              {moreFieldsText(tag.moreFields)}
              {tag.line ? ` · line ${tag.line}` : ""}
            </span>
          </div>
          <p className="text-[0.85rem]">{tag.reason}</p>
          {quotes[i].quote !== null && (
            <blockquote aria-label={`Untrusted passage for ${tag.id}`} tabIndex={0} className="mt-1 max-h-64 overflow-auto border-l-2 border-current/40 bg-white/60 px-2 py-1 text-[0.8rem] whitespace-pre-wrap break-words [overflow-wrap:anywhere]">
              <RevealedText text={quotes[i].quote} />
            </blockquote>
          )}
          {quotes[i].quotedUnder !== null && <p className="mt-1 text-xs">The same passage, quoted above under <span className="font-mono">{quotes[i].quotedUnder}</span>.</p>}
        </li>
      ))}
    </ul>
  );
}
