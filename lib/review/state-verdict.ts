import type { FieldChange } from "@/lib/approvals/payload-diff";
import type { StateNow } from "@/lib/review/action-detail";

/**
 * What a vote to approve would be told about the state now: "changed" (refused, state_changed),
 * "unchanged", or "unknown" when it could not be read or compared on this page (the vote reads it
 * itself). The badge, the blocked Approve button and the queue's notice all ask here.
 */
export function stateVerdict(now: StateNow): "changed" | "unchanged" | "unknown" {
  if (now.state === "changed" || (now.state === "unreadable" && now.gone)) return "changed";
  if (now.state === "unchanged" || now.state === "none") return "unchanged";
  return "unknown";
}

/** The changes since request when the verdict is "changed", else null. */
export function changesSinceRequest(now: StateNow): FieldChange[] | null {
  if (now.state === "changed") return now.changes;
  if (now.state === "unreadable" && now.gone) return now.gone.changes;
  return null;
}
