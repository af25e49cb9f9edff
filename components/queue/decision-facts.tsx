import type { QueueItem } from "@/lib/review/queue-item";
import { moreFieldsText } from "@/lib/risk/group-risk-tags";
import { RevealedShortText } from "@/components/ui/revealed-short-text";
import { StateChangedNotice } from "@/components/queue/state-changed-notice";

const TAG_TONE: Record<string, string> = {
  low: "text-emerald-800 bg-emerald-50",
  medium: "text-amber-900 bg-amber-50",
  high: "text-orange-900 bg-orange-50",
  critical: "text-red-900 bg-red-50",
};

/** What the decision rests on, in the queue's confirmation: the effect, the top tags and whether the state changed. */
export function DecisionFacts({ items }: { items: QueueItem[] }) {
  return (
    <ul aria-label="What you are deciding" tabIndex={0} className="mt-3 max-h-64 space-y-2 overflow-auto">
      {items.map((item) => (
        <li key={item.id} className="rounded-md border border-slate-200 px-3 py-2 text-[0.85rem]">
          <p>
            <span className="text-xs font-medium text-slate-600">Effect: </span>
            <RevealedShortText text={item.summary} />
          </p>
          {item.riskTags.length > 0 && (
            <p className="mt-1 flex flex-wrap gap-1" aria-label="Top risk tags">
              {item.riskTags.map((tag) => (
                <span key={tag.id} title={tag.reason} className={`rounded px-1.5 py-0.5 text-xs ${TAG_TONE[tag.severity]}`}>
                  {tag.id}{tag.fields.length > 0 && <span className="font-mono"> · {tag.fields.join(", ")}</span>}{moreFieldsText(tag.moreFields)} <span className="font-normal">({tag.severity})</span>
                </span>
              ))}
              {item.moreTags > 0 && <span className="px-1 text-xs text-slate-600">+{item.moreTags} more</span>}
            </p>
          )}
          {item.stateChanges && <StateChangedNotice changes={item.stateChanges} more={item.moreStateChanges} />}
        </li>
      ))}
    </ul>
  );
}
