"use client";

import type { QueueItem } from "@/lib/review/queue-item";
import { ReviewDialog } from "@/components/queue/review-dialog";
import { DecisionFacts } from "@/components/queue/decision-facts";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";
import type { QueueVerdict } from "@/components/queue/use-queue-decision";

/** The queue's confirmation for the chosen rows; a row whose state changed offers "Re-read state" instead of Approve. */
export function QueueDecisionDialog({ verdict, items, pending, error, onConfirm, onClose }: {
  verdict: QueueVerdict;
  items: QueueItem[];
  pending: boolean;
  error: string | null;
  onConfirm: (note: string) => void;
  onClose: () => void;
}) {
  const names = items.map((item) => `${item.tool}: ${item.summary}`);
  const stale = items.filter((item) => item.stateChanges);
  return (
    <ReviewDialog
      verdict={verdict}
      names={names}
      pending={pending}
      error={error}
      onConfirm={onConfirm}
      onClose={onClose}
      facts={<DecisionFacts items={items} />}
      outcome={items.length === 1 ? <RereadOutcome actionId={items[0].id} revision={items[0].revision} className="mt-2 text-sm" /> : null}
      approveReplacement={stale.length === 0 ? undefined : stale.length === 1 && items.length === 1 ? (
        <RereadStateButton actionId={stale[0].id} revision={stale[0].revision} payloadHash={stale[0].payloadHash} label={names[0]} />
      ) : (
        <span className="self-center text-amber-900">The state of {stale.length} of these changed since request: re-read each first.</span>
      )}
    />
  );
}
