"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { QueueItem } from "@/lib/review/queue-item";

/** Where the cursor was, so returning to the queue (from an action page, or after a reload) keeps it. */
const CURSOR_KEY = "countersign:queue-cursor";
const noSubscription = () => () => {};

/**
 * The queue's cursor: the row's id and its place. When the row leaves the list (decided, expired),
 * the row that takes its place gets the cursor, not row 1. Until it moves, it is where it was when
 * this tab last showed the queue.
 */
export function useQueueCursor(items: QueueItem[]) {
  const [cursor, setCursor] = useState<{ id: string; index: number } | null>(null);
  const savedCursorId = useSyncExternalStore(noSubscription, () => sessionStorage.getItem(CURSOR_KEY), () => null);
  // After a decision from the dialog, focus goes to the row the cursor moved to once the list refreshed.
  const focusCursorRow = useRef(false);

  const found = items.findIndex((item) => item.id === (cursor?.id ?? savedCursorId));
  const cursorIndex = found >= 0 ? found : Math.min(cursor?.index ?? 0, Math.max(0, items.length - 1));
  const current = items[cursorIndex] ?? null;

  useEffect(() => {
    // Only once it moved here: before that, the saved place is not known yet while hydrating.
    if (cursor && current) sessionStorage.setItem(CURSOR_KEY, current.id);
    if (focusCursorRow.current && current) {
      focusCursorRow.current = false;
      document.querySelector<HTMLElement>(`#queue-row-${CSS.escape(current.id)} a`)?.focus();
    }
  });

  const setCursorId = (id: string) => setCursor({ id, index: Math.max(0, items.findIndex((item) => item.id === id)) });

  const move = (delta: number) => {
    if (items.length === 0) return;
    const next = items[Math.min(items.length - 1, Math.max(0, cursorIndex + delta))];
    setCursorId(next.id);
    document.getElementById(`queue-row-${next.id}`)?.scrollIntoView({ block: "nearest" });
  };

  /** Decide and advance: the cursor goes to this row, and focus follows once the list refreshed. */
  const advanceTo = (id: string) => {
    setCursorId(id);
    focusCursorRow.current = true;
  };

  return { cursorIndex, setCursorId, move, advanceTo };
}
