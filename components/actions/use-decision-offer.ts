"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useRereadOutcome } from "@/components/actions/reread-outcome";
import { useLiveDecisionState } from "@/components/actions/use-live-decision-state";
import { liveOffer, type LiveOffer, type ShownRevision } from "@/lib/review/live-decision";

/** What the decision panel may offer now, for the revision this reviewer has been reading. */
export type DecisionOffer = {
  shown: ShownRevision;
  offer: LiveOffer;
  /** Another revision is current: nothing of this one can be decided. */
  moved: boolean;
  /** The state it rests on changed: Re-read, not Approve. */
  stale: boolean;
  /** The action no longer waits for a decision. */
  closed: boolean;
  /** The vote refused an approval of the shown revision because its state changed. */
  refusedAsStale: () => void;
};

/**
 * Follows the action while the panel is open (lib/review/live-decision.ts): the moment the state it
 * rests on changes, or after the vote refused an approval as stale, Approve gives way to "Re-read
 * state"; and the page behind catches up as soon as the live read moves on.
 */
export function useDecisionOffer({ actionId, payloadHash, revision, canDecide, stateChanged }: ShownRevision & {
  actionId: string;
  canDecide: boolean;
  stateChanged: boolean;
}): DecisionOffer {
  const router = useRouter();
  // The revision this reviewer has been reading. A live refresh may bring a newer one; the form
  // keeps sending the hash first shown, so the server refuses instead of approving unseen changes.
  // A re-read this reviewer asked for here is the exception: its revision is the one now shown.
  const [shown, setShown] = useState({ payloadHash, revision });
  const reread = useRereadOutcome(actionId);
  if (reread?.tone === "ok" && reread.revision === revision && shown.payloadHash !== payloadHash) setShown({ payloadHash, revision });
  // Approvals of this revision the vote refused because its state changed: Approve would be refused again.
  const [refusedStale, setRefusedStale] = useState<string | null>(null);
  const live = useLiveDecisionState(actionId, canDecide);
  const offer: LiveOffer = liveOffer(shown, live, refusedStale === shown.payloadHash);
  const moved = shown.payloadHash !== payloadHash || offer.offer === "moved";
  const stale = !moved && ((stateChanged && shown.payloadHash === payloadHash) || offer.offer === "reread");
  const closed = offer.offer === "closed";
  // The moment the live read moves on, the page behind catches up (the state, the diff, the status).
  useEffect(() => {
    if (offer.offer !== "approve") router.refresh();
  }, [offer.offer, router]);
  return { shown, offer, moved, stale, closed, refusedAsStale: () => setRefusedStale(shown.payloadHash) };
}
