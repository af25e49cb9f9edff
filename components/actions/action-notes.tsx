import type { ActionDetail } from "@/lib/review/action-detail";

/** Approvals on record for this revision that the claim would not count (lib/review/action-detail.ts). */
export function BackInReviewNote({ action }: { action: ActionDetail }) {
  const { current } = action;
  const withdrawn = action.status === "pending"
    ? action.decisions.filter((d) => d.revision === current.revision && d.verdict === "approve" && !d.void && !d.counts).length
    : 0;
  if (withdrawn === 0) return null;
  return (
    <p role="note" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-[0.85rem] text-amber-950">
      <span className="font-medium">Back in review: </span>
      {withdrawn === 1 ? "an approval" : `${withdrawn} approvals`} of this revision no longer {withdrawn === 1 ? "counts" : "count"} — the
      reviewer may no longer decide it, or the passkey that signed was removed — so it needs {action.quorum - action.approvals} more.
    </p>
  );
}

/** Why a decided (or otherwise ended) action is where it is. */
export function StatusReasonNote({ action }: { action: ActionDetail }) {
  if (!action.statusReason || action.status === "pending") return null;
  return (
    <p className="mb-4 rounded-md border border-slate-200 bg-white px-4 py-2 text-[0.85rem]">
      <span className="font-medium">Why it is {action.status.replaceAll("_", " ")}: </span>
      <span className="whitespace-pre-wrap">{action.statusReason}</span>
    </p>
  );
}
