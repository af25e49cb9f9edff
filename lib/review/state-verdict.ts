import type { FieldChange } from "@/lib/approvals/payload-diff";
import type { StateNow } from "@/lib/review/action-detail";
import { formatMinor, isMinorUnitsField } from "@/lib/tools/money";

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

/** A snapshot path in words: "invoice.amount_refunded_minor" → "invoice amount refunded". */
export function stateFieldLabel(path: string): string {
  return path.replace(/_minor$/, "").split(/[._]/).join(" ");
}

/** The changes with a record's status first: what a reviewer reads first. */
export function statusFirst<T extends { path: string }>(changes: readonly T[]): T[] {
  const first = (c: T) => (/(?:^|\.)status$/.test(c.path) ? 0 : 1);
  return [...changes].sort((a, b) => first(a) - first(b));
}

/**
 * A state change in words, for the page: "invoice status open → cancelled", money in major units
 * ("invoice amount refunded 0.00 → 10.00"). The snapshot's path names the record and its field.
 */
export function describeStateChange(change: FieldChange): string {
  const minor = isMinorUnitsField(change.path);
  const label = stateFieldLabel(change.path);
  const value = (v: FieldChange["before"]) =>
    v === null ? "none" : minor && typeof v === "number" ? formatMinor(v, "").trim() : typeof v === "string" ? v : JSON.stringify(v);
  if (change.change === "added") return `${label} now ${value(change.after)}`;
  if (change.change === "removed") return `${label} gone (was ${value(change.before)})`;
  return `${label} ${value(change.before)} → ${value(change.after)}`;
}

/**
 * The first few changes in words, a record's status first (what a reviewer reads first: "invoice
 * status open → cancelled"), and how many more there are (the table below lists them all).
 */
export function describeStateChanges(changes: readonly FieldChange[], max = 5): string {
  const said = statusFirst(changes).slice(0, max).map(describeStateChange).join("; ");
  return changes.length > max ? `${said}; and ${changes.length - max} more` : said;
}
