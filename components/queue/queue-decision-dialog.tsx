"use client";

import Link from "next/link";
import type { QueueItem } from "@/lib/review/queue-item";
import { liveOffer, type LiveOffer } from "@/lib/review/live-decision";
import { buttonClass } from "@/components/ui/button";
import { ReviewDialog } from "@/components/queue/review-dialog";
import { DecisionFacts } from "@/components/queue/decision-facts";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";
import { useLiveDecisionState } from "@/components/actions/use-live-decision-state";
import type { QueueVerdict } from "@/components/queue/use-queue-decision";

/**
 * The queue's confirmation for the chosen rows. One row is followed live while the dialog is open
 * (lib/review/live-decision.ts): the moment its state changes, or after the vote refused it as
 * stale, it offers "Re-read state" instead of Approve; a row that needs a passkey says so before
 * anything is confirmed and links to its action page, where the passkey signs.
 */
export function QueueDecisionDialog({ verdict, items, pending, error, refusedAsStale, onConfirm, onClose, restoreFocus }: {
  verdict: QueueVerdict;
  items: QueueItem[];
  pending: boolean;
  error: string | null;
  /** Ids whose approval the vote just refused because their state changed. */
  refusedAsStale: (item: QueueItem) => boolean;
  onConfirm: (note: string) => void;
  onClose: () => void;
  restoreFocus: () => boolean;
}) {
  const single = items.length === 1 ? items[0] : null;
  const live = useLiveDecisionState(single?.id ?? null, single !== null);
  const offer: LiveOffer = single ? liveOffer(single, live, refusedAsStale(single)) : { offer: "approve" };
  // Another revision or a decision elsewhere: the list is not refreshed under the open dialog (it
  // would put the new revision behind an Approve the reviewer was about to press); it says so instead.

  const shown = items.map((item) =>
    item === single && offer.offer === "reread" && !item.stateChanges && offer.changes.length > 0
      ? { ...item, stateChanges: offer.changes, moreStateChanges: offer.moreChanges }
      : item,
  );
  const names = items.map((item) => `${item.tool}: ${item.summary}`);
  const stale = shown.filter((item) => item.stateChanges || (item === single && offer.offer === "reread") || refusedAsStale(item));
  const signed = items.filter((item) => item.signatureRequired);
  return (
    <ReviewDialog
      verdict={verdict}
      names={names}
      pending={pending}
      error={error}
      onConfirm={onConfirm}
      onClose={onClose}
      restoreFocus={restoreFocus}
      facts={
        <>
          <DecisionFacts items={shown} />
          {verdict === "approve" && signed.length > 0 && (
            <p role="note" className="mt-2 rounded-md bg-indigo-50 px-3 py-2 text-[0.85rem] text-indigo-950">
              {single
                ? "The policy requires approving this action with your passkey, which signs a receipt of what you approve. Approve it on its action page."
                : `${signed.length} of these need${signed.length === 1 ? "s" : ""} your passkey: approve ${signed.length === 1 ? "it" : "each"} on ${signed.length === 1 ? "its" : "their"} action page.`}
            </p>
          )}
          {single && offer.offer === "moved" && (
            <p role="alert" className="mt-2 rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
              This action changed while the dialog was open: revision {offer.revision} is current now. Close this and review it again.
            </p>
          )}
          {single && offer.offer === "closed" && (
            <p role="alert" className="mt-2 rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
              This action no longer waits for a decision: it is {offer.status.replaceAll("_", " ")}.
            </p>
          )}
        </>
      }
      outcome={single ? <RereadOutcome actionId={single.id} revision={single.revision} className="mt-2 text-sm" /> : null}
      approveReplacement={approveReplacement({ single, offer, stale, signed, names })}
    />
  );
}

function approveReplacement({ single, offer, stale, signed, names }: {
  single: QueueItem | null;
  offer: LiveOffer;
  stale: QueueItem[];
  signed: QueueItem[];
  names: string[];
}) {
  if (single && (offer.offer === "moved" || offer.offer === "closed")) return <span className="self-center text-amber-900">Nothing to approve here now.</span>;
  if (single && stale.length === 1) {
    return <RereadStateButton actionId={single.id} revision={single.revision} payloadHash={single.payloadHash} label={names[0]} />;
  }
  if (stale.length > 0) return <span className="self-center text-amber-900">The state of {stale.length} of these changed since request: re-read each first.</span>;
  if (single && signed.length === 1) {
    return (
      <Link href={`/actions/${single.id}#decide`} className={buttonClass.primary}>
        Open the action page to approve with your passkey
      </Link>
    );
  }
  if (signed.length > 0) return <span className="self-center text-indigo-950">Approve the actions that need a passkey on their action pages.</span>;
  return undefined;
}
