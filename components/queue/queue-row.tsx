"use client";

import Link from "next/link";
import { RiskBadge } from "@/components/ui/badges";
import { buttonClass } from "@/components/ui/button";
import { TimeLeft } from "@/components/ui/time";
import { isBulkCandidate } from "@/lib/review/bulk-eligibility";
import type { QueueItem } from "@/lib/review/queue-item";
import { moreFieldsText } from "@/lib/risk/group-risk-tags";
import { StateChangedNotice } from "@/components/queue/state-changed-notice";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";
import { RevealedShortText } from "@/components/ui/revealed-short-text";
import type { QueueVerdict } from "@/components/queue/use-queue-decision";

const TAG_TONE: Record<string, string> = {
  low: "text-emerald-800 bg-emerald-50",
  medium: "text-amber-900 bg-amber-50",
  high: "text-orange-900 bg-orange-50",
  critical: "text-red-900 bg-red-50",
};

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One pending action in the queue: what it does, who asked, and the votes it has and needs. */
export function QueueRow({ item, active, selected, decidable, onCursor, onToggle, onDecide }: {
  item: QueueItem;
  /** The cursor is on this row. */
  active: boolean;
  /** Chosen for a bulk decision. */
  selected: boolean;
  /** This reviewer may decide it now. */
  decidable: boolean;
  onCursor: () => void;
  onToggle: () => void;
  onDecide: (verdict: QueueVerdict) => void;
}) {
  return (
    <li
      id={`queue-row-${item.id}`}
      aria-current={active ? "true" : undefined}
      data-action-id={item.id}
      onClick={onCursor}
      onFocus={onCursor}
      className={`grid grid-cols-[1.5rem_minmax(0,1fr)_auto] gap-x-3 px-3 py-2.5 ${active ? "bg-indigo-50/70 shadow-[inset_3px_0_0_0_var(--color-indigo-600)]" : "hover:bg-slate-50"}`}
    >
      <div className="pt-0.5">
        {isBulkCandidate(item) && (
          <input
            type="checkbox"
            aria-label={`Select ${item.tool}: ${item.summary}`}
            checked={selected}
            onChange={onToggle}
            className="size-4 accent-indigo-700"
          />
        )}
      </div>
      <QueueRowSummary item={item} />
      <QueueRowVotes item={item} decidable={decidable} onDecide={onDecide} />
    </li>
  );
}

function QueueRowSummary({ item }: { item: QueueItem }) {
  return (
    <div className="min-w-0">
      <div className="flex flex-wrap items-center gap-2">
        <RiskBadge level={item.riskLevel} />
        <Link href={`/actions/${item.id}`} className="font-medium text-indigo-800 hover:underline">
          <span className="font-mono text-[0.8rem]">{item.tool}</span>
          <span className="text-slate-600"> · </span>
          <span className="text-slate-900"><RevealedShortText text={item.summary} /></span>
        </Link>
        {item.revision > 1 && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-700">revision {item.revision}</span>}
      </div>
      <div className="mt-1 flex flex-wrap gap-1">
        {item.riskTags.map((tag) => (
          <span key={tag.id} title={tag.reason} className={`rounded px-1.5 py-0.5 text-xs ${TAG_TONE[tag.severity]}`}>
            {tag.id}{tag.fields.length > 0 && <span className="font-mono"> · {tag.fields.join(", ")}</span>}{moreFieldsText(tag.moreFields)} <span className="font-normal">({tag.severity})</span>
          </span>
        ))}
        {item.moreTags > 0 && <span className="px-1 text-xs text-slate-600">+{item.moreTags} more</span>}
      </div>
      {item.stateChanges && <StateChangedNotice changes={item.stateChanges} more={item.moreStateChanges} />}
      <p className="mt-1 text-xs text-slate-600">
        Requested by <span className="text-slate-800">{item.requesterLabel}</span>
        {item.task && (
          <>
            {" "}for task{" "}
            <Link href={`/tasks/${item.task.id}`} className="text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">
              {truncate(item.task.instruction, 70)}
            </Link>
          </>
        )}
      </p>
    </div>
  );
}

function QueueRowVotes({ item, decidable, onDecide }: { item: QueueItem; decidable: boolean; onDecide: (verdict: QueueVerdict) => void }) {
  return (
    <div className="flex flex-col items-end gap-1 text-right text-xs text-slate-700">
      <TimeLeft until={item.expiresAt} />
      <span>
        <span className="font-semibold text-slate-900">{item.approvals}</span> of {item.quorum} approval{item.quorum === 1 ? "" : "s"}
      </span>
      {item.myVote && <span className="rounded bg-slate-100 px-1.5 py-0.5 font-medium text-slate-800">You {item.myVote === "approve" ? "approved" : "rejected"}</span>}
      {item.blockedReason && <span className="max-w-48 text-amber-900">{item.blockedReason}</span>}
      {decidable && (
        <span className="flex gap-1">
          {item.stateChanges ? (
            <RereadStateButton actionId={item.id} revision={item.revision} payloadHash={item.payloadHash} label={`${item.tool}: ${item.summary}`} compact />
          ) : (
            <button type="button" className={`${buttonClass.approve} px-2 py-0.5 text-xs`} onClick={() => onDecide("approve")} aria-label={`Approve ${item.tool}: ${item.summary}`}>
              Approve
            </button>
          )}
          <button type="button" className={`${buttonClass.reject} px-2 py-0.5 text-xs`} onClick={() => onDecide("reject")} aria-label={`Reject ${item.tool}: ${item.summary}`}>
            Reject
          </button>
        </span>
      )}
      {decidable && <RereadOutcome actionId={item.id} revision={item.revision} className="max-w-64" />}
    </div>
  );
}
