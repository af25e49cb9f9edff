import type { FieldChange } from "@/lib/approvals/payload-diff";
import type { DecisionState } from "@/lib/review/read-decision-state";

/** The revision an open decision shows: what its Approve would send. */
export type ShownRevision = { revision: number; payloadHash: string };

/**
 * What an open decision may offer, given the decision state read last:
 * - `approve`: nothing moved (or nothing is known yet: the vote re-checks anyway);
 * - `reread`: the state it rests on changed since request — offer "Re-read state", not Approve;
 * - `moved`: another revision is current now — Approve would approve something not shown;
 * - `closed`: the action no longer waits for a decision.
 */
export type LiveOffer =
  | { offer: "approve" }
  | { offer: "reread"; changes: FieldChange[]; moreChanges: number }
  | { offer: "moved"; revision: number }
  | { offer: "closed"; status: string };

export function liveOffer(shown: ShownRevision, live: DecisionState | null, refusedAsStale = false): LiveOffer {
  // A read from before the page moved on (its revision is older than the one shown) says nothing.
  const current = live && live.revision >= shown.revision ? live : null;
  if (current && current.status !== "pending") return { offer: "closed", status: current.status };
  if (current && (current.revision !== shown.revision || current.payloadHash !== shown.payloadHash)) return { offer: "moved", revision: current.revision };
  if (current?.state === "changed") return { offer: "reread", changes: current.changes, moreChanges: current.moreChanges };
  // The vote refused this very revision because its state changed: Approve again would be refused again.
  if (refusedAsStale) return { offer: "reread", changes: [], moreChanges: 0 };
  return { offer: "approve" };
}

/** At most one request a second, and no faster than the last answer came. */
export const LIVE_POLL_MS = 1_000;
