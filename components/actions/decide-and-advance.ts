"use client";

import { queueNeighboursFromConsole } from "@/app/(console)/actions/queue-neighbour-actions";

/** The outcome of a decision, carried to the next action's page (shown there once). */
const DECIDED_KEY = "countersign:decided";

/** The next action waiting for this reviewer after `actionId` (wrapping to the first), or null. */
export async function nextUndecided(actionId: string): Promise<string | null> {
  const result = await queueNeighboursFromConsole({ actionId });
  return result.ok ? result.data.next : null;
}

export function carryDecisionOutcome(text: string): void {
  sessionStorage.setItem(DECIDED_KEY, text);
}

let carried: { actionId: string; text: string | null } | null = null;

/**
 * The outcome carried from the previous action's page to this one: taken from storage the first
 * time this action's page asks, then the same answer for as long as the page shows that action.
 */
export function carriedDecisionOutcome(actionId: string): string | null {
  if (carried?.actionId !== actionId) {
    const text = sessionStorage.getItem(DECIDED_KEY);
    sessionStorage.removeItem(DECIDED_KEY);
    carried = { actionId, text };
  }
  return carried.text;
}

/** Typing in a field never triggers a page shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}
