"use client";

import { useRouter } from "next/navigation";
import { useEffect, useSyncExternalStore } from "react";
import { isBulkCandidate } from "@/lib/review/bulk-eligibility";
import type { QueueItem } from "@/lib/review/queue-item";
import type { QueueVerdict } from "@/components/queue/use-queue-decision";
import { isTyping } from "@/components/actions/decide-and-advance";

/** The queue's keys (the hint bar says what each does). */
export const QUEUE_SHORTCUTS = "j k o Enter a r x";
const noSubscription = () => () => {};

/**
 * The queue's keyboard: j/k move, o or Enter opens, a/r open the confirmation, x selects for bulk.
 * Typing in a field or an open dialog never triggers them. Returns whether the keys are live: false
 * in the server's HTML and while it hydrates, so the list offers them (aria-keyshortcuts) only then.
 */
export function useQueueShortcuts({ items, cursorIndex, dialogOpen, move, decidable, openDialog, refuse, toggle }: {
  items: QueueItem[];
  cursorIndex: number;
  dialogOpen: boolean;
  move: (delta: number) => void;
  decidable: (item: QueueItem | null) => boolean;
  openDialog: (verdict: QueueVerdict, ids: string[]) => void;
  /** Says why a or r did nothing on this row. */
  refuse: (item: QueueItem) => void;
  toggle: (id: string) => void;
}): boolean {
  const router = useRouter();
  const keysReady = useSyncExternalStore(noSubscription, () => true, () => false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (dialogOpen || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return;
      const onControl = event.target instanceof HTMLElement && ["A", "BUTTON"].includes(event.target.tagName);
      // A key pressed while focus is in a row acts on that row, whatever the cursor says.
      const focusedRow = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>("[data-action-id]") : null;
      const current = items.find((item) => item.id === focusedRow?.dataset.actionId) ?? items[cursorIndex] ?? null;
      switch (event.key) {
        case "j":
          event.preventDefault();
          move(1);
          break;
        case "k":
          event.preventDefault();
          move(-1);
          break;
        case "o":
        case "Enter":
          if (event.key === "Enter" && onControl) return;
          if (current) {
            event.preventDefault();
            router.push(`/actions/${current.id}`);
          }
          break;
        case "a":
        case "r":
          if (current && decidable(current)) {
            event.preventDefault();
            openDialog(event.key === "a" ? "approve" : "reject", [current.id]);
          } else if (current) {
            refuse(current);
          }
          break;
        case "x":
          if (current && isBulkCandidate(current)) {
            event.preventDefault();
            toggle(current.id);
          }
          break;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });

  return keysReady;
}
