"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { bulkRefusal, isBulkCandidate } from "@/lib/review/bulk-eligibility";
import type { QueueItem } from "@/lib/review/queue-item";
import { FRAMED_MESSAGE, useFramed } from "@/components/ui/use-framed";
import { BulkDecisionBar } from "@/components/queue/bulk-decision-bar";
import { KeyboardHints } from "@/components/queue/keyboard-hints";
import { QueueDecisionDialog } from "@/components/queue/queue-decision-dialog";
import { QueueNoticeView, type QueueNotice } from "@/components/queue/queue-notice";
import { QueueRow } from "@/components/queue/queue-row";
import { useBulkSelection } from "@/components/queue/use-bulk-selection";
import { useQueueCursor } from "@/components/queue/use-queue-cursor";
import { useQueueDecision } from "@/components/queue/use-queue-decision";
import { QUEUE_SHORTCUTS, useQueueShortcuts } from "@/components/queue/use-queue-shortcuts";

const REFRESH_MS = 8000;

/** Live updates: re-render the server list while the tab is visible and no decision is open. */
function useLiveQueue(paused: boolean) {
  const router = useRouter();
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [paused, router]);
}

/** The reviewer's queue: live, keyboard-driven, with bulk decisions only where they are safe. */
export function QueueList({ items }: { items: QueueItem[] }) {
  const [notice, setNotice] = useState<QueueNotice | null>(null);
  // Decisions never act from inside a frame (clickjacking); see use-framed.ts.
  const framed = useFramed();
  const decidable = (item: QueueItem | null) => framed === false && item !== null && item.myVote === null && item.blockedReason === null;
  const cursor = useQueueCursor(items);
  const selection = useBulkSelection(items);
  const decision = useQueueDecision({ items, decidable, advanceTo: cursor.advanceTo, notify: setNotice, clearSelection: selection.clear });
  useLiveQueue(decision.verdict !== null);
  const keysReady = useQueueShortcuts({
    items,
    cursorIndex: cursor.cursorIndex,
    dialogOpen: decision.verdict !== null,
    move: cursor.move,
    decidable,
    openDialog: decision.open,
    refuse: (item) => setNotice({ tone: "error", text: framed ? FRAMED_MESSAGE : item.blockedReason ?? "You have already voted on this revision; another reviewer must add the next vote." }),
    toggle: selection.toggle,
  });
  const { selectedItems } = selection;

  return (
    <div>
      <KeyboardHints bulk={items.some(isBulkCandidate)} />
      {framed && <p role="alert" className="mb-3 rounded-md bg-red-50 px-3 py-2 text-red-800">{FRAMED_MESSAGE}</p>}
      {notice && <QueueNoticeView notice={notice} />}
      {selectedItems.length > 0 && (
        <BulkDecisionBar
          count={selectedItems.length}
          problem={bulkRefusal(selectedItems)}
          disabled={decision.pending || framed !== false}
          onDecide={(verdict) => decision.open(verdict, selectedItems.map((i) => i.id))}
          onClear={selection.clear}
        />
      )}
      <ul aria-label="Pending actions" aria-keyshortcuts={keysReady ? QUEUE_SHORTCUTS : undefined} className="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white">
        {items.map((item, index) => (
          <QueueRow
            key={item.id}
            item={item}
            active={index === cursor.cursorIndex}
            selected={selection.selected.has(item.id)}
            decidable={decidable(item)}
            onCursor={() => cursor.setCursorId(item.id)}
            onToggle={() => selection.toggle(item.id)}
            onDecide={(verdict) => decision.open(verdict, [item.id])}
          />
        ))}
      </ul>
      {decision.verdict && (
        <QueueDecisionDialog
          verdict={decision.verdict}
          items={decision.dialogItems}
          pending={decision.pending}
          error={decision.error}
          refusedAsStale={decision.refusedAsStale}
          onConfirm={decision.confirm}
          onClose={decision.close}
          restoreFocus={decision.restoreFocus}
        />
      )}
    </div>
  );
}
