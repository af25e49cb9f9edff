"use client";

import { buttonClass } from "@/components/ui/button";
import type { QueueVerdict } from "@/components/queue/use-queue-decision";

/** Shown while rows are selected: decide them together, or say why they cannot be. */
export function BulkDecisionBar({ count, problem, disabled, onDecide, onClear }: {
  count: number;
  /** Why these rows cannot be decided in bulk, or null. */
  problem: string | null;
  disabled: boolean;
  onDecide: (verdict: QueueVerdict) => void;
  onClear: () => void;
}) {
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3 rounded-md border border-slate-200 bg-white px-3 py-2">
      <span className="font-medium">{count} selected</span>
      <button type="button" className={buttonClass.approve} disabled={problem !== null || disabled} onClick={() => onDecide("approve")}>
        Approve selected
      </button>
      <button type="button" className={buttonClass.reject} disabled={problem !== null || disabled} onClick={() => onDecide("reject")}>
        Reject selected
      </button>
      <button type="button" className={buttonClass.secondary} onClick={onClear}>Clear</button>
      {problem && <span className="text-amber-900">{problem}</span>}
    </div>
  );
}
