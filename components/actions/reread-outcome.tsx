"use client";

import { useSyncExternalStore } from "react";

/**
 * What the last "Re-read state" on an action came to. The button that made it usually leaves the
 * page with the refresh that follows (the new revision is not stale, so Approve takes its place),
 * so the outcome lives here, in this tab, and is shown by whatever stays on screen: the dialog, the
 * queue row, the action page. `revision` is the revision it speaks of (the one made, or the one a
 * refused re-read left current); once a later revision exists, the outcome is no longer shown.
 */
type Outcome = { tone: "ok" | "error"; text: string; revision: number };

const outcomes = new Map<string, Outcome>();
const listeners = new Set<() => void>();

export function reportReread(actionId: string, outcome: Outcome): void {
  outcomes.set(actionId, outcome);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** What the last "Re-read state" on this action in this tab came to, if anything. */
export function useRereadOutcome(actionId: string): Outcome | null {
  return useSyncExternalStore(subscribe, () => outcomes.get(actionId) ?? null, () => null);
}

/** The outcome of re-reading this action's state, while `revision` (the one on screen) is not past it. */
export function RereadOutcome({ actionId, revision, className = "" }: { actionId: string; revision: number; className?: string }) {
  const outcome = useRereadOutcome(actionId);
  if (!outcome || outcome.revision < revision) return null;
  return (
    <span role={outcome.tone === "error" ? "alert" : "status"} className={`block text-xs ${outcome.tone === "error" ? "text-red-800" : "text-emerald-900"} ${className}`}>
      {outcome.text}
    </span>
  );
}
