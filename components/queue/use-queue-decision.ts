"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { bulkDecideFromQueue } from "@/app/(console)/queue/bulk-actions";
import { decideFromConsole } from "@/app/(console)/actions/review-actions";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import type { QueueItem } from "@/lib/review/queue-item";
import { bulkNotice, type QueueNotice } from "@/components/queue/queue-notice";

export type QueueVerdict = "approve" | "reject";
type Dialog = { verdict: QueueVerdict; ids: string[] };
type Outcome = { ok: true; notice: QueueNotice } | { ok: false; error: string; code?: string };

/** A revision as the vote saw it: a refusal for its state holds for that revision only. */
const revisionKey = (item: QueueItem) => `${item.id}:${item.payloadHash}`;

/**
 * The queue's confirmation: the rows it decides, how long it has shown them, and the decision
 * itself, for one action or for several in bulk.
 */
export function useQueueDecision({ items, decidable, advanceTo, notify, clearSelection }: {
  items: QueueItem[];
  decidable: (item: QueueItem | null) => boolean;
  advanceTo: (id: string) => void;
  notify: (notice: QueueNotice) => void;
  clearSelection: () => void;
}) {
  const router = useRouter();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  // Revisions whose approval the vote refused because their state changed: they offer Re-read, not Approve.
  const [refusedStale, setRefusedStale] = useState<ReadonlySet<string>>(() => new Set());
  // Where focus goes when the dialog closes without a decision: the row it was opened for.
  const returnTo = useRef<string | null>(null);
  const dialogItems = dialog ? items.filter((item) => dialog.ids.includes(item.id)) : [];

  // Since when the open confirmation has shown these payloads (performance.now()); decisions report
  // the time since. A new revision shown in the open dialog (a re-read of the state) starts it afresh.
  const shownSince = useRef<{ hashes: string; at: number } | null>(null);
  const dialogHashes = dialog ? dialogItems.map((item) => item.payloadHash).join(",") : null;
  useEffect(() => {
    if (dialogHashes === null) shownSince.current = null;
    else if (shownSince.current?.hashes !== dialogHashes) shownSince.current = { hashes: dialogHashes, at: performance.now() };
  }, [dialogHashes]);

  const open = (verdict: QueueVerdict, ids: string[]) => {
    setError(null);
    returnTo.current = ids.length === 1 ? ids[0] : null;
    setDialog({ verdict, ids });
  };
  const restoreFocus = () => {
    const id = returnTo.current;
    const link = id ? document.querySelector<HTMLElement>(`#queue-row-${CSS.escape(id)} a`) : null;
    link?.focus();
    return link !== null;
  };
  const refusedAsStale = (item: QueueItem) => refusedStale.has(revisionKey(item));
  const close = () => setDialog(null);

  const confirm = (note: string) => {
    if (!dialog || window.top !== window.self) return;
    const { verdict } = dialog;
    const targets = dialogItems;
    const viewedMs = Math.round(performance.now() - (shownSince.current?.at ?? performance.now()));
    if (verdict === "reject" && !note.trim()) {
      setError("Write a reason for the rejection; it is sent back to the agent.");
      return;
    }
    startTransition(async () => {
      const outcome = targets.length === 1 ? await decideOne(targets[0], verdict, note, viewedMs) : await decideMany(targets, verdict, note, viewedMs);
      if (!outcome.ok) {
        setError(outcome.error);
        if (outcome.code === "state_changed" && targets.length === 1) setRefusedStale((old) => new Set(old).add(revisionKey(targets[0])));
        return;
      }
      // Decided: focus follows the cursor to the next row once the list refreshed, not back here.
      returnTo.current = null;
      if (targets.length === 1) {
        // Decide and advance: the cursor goes to the next row still waiting for this reviewer.
        const at = items.findIndex((other) => other.id === targets[0].id);
        const next = [...items.slice(at + 1), ...items.slice(0, at)].find((other) => decidable(other));
        if (next) advanceTo(next.id);
      } else {
        clearSelection();
      }
      notify(outcome.notice);
      setDialog(null);
      router.refresh();
    });
  };

  return { verdict: dialog?.verdict ?? null, dialogItems, error, pending, open, close, confirm, refusedAsStale, restoreFocus };
}

async function decideOne(item: QueueItem, verdict: QueueVerdict, note: string, viewedMs: number): Promise<Outcome> {
  const result = await decideFromConsole({ actionId: item.id, payloadHash: item.payloadHash, verdict, note: note || undefined, viewedMs });
  if (!result.ok) return { ok: false, error: decisionErrorMessage(result.error), code: result.error.code };
  const { status, approvals, quorum } = result.data;
  const text =
    status === "pending"
      ? `Your approval of ${item.tool} is recorded (${approvals} of ${quorum}); it waits for another reviewer.`
      : `${item.tool} is ${status}.`;
  return { ok: true, notice: { tone: "ok", text } };
}

async function decideMany(targets: QueueItem[], verdict: QueueVerdict, note: string, viewedMs: number): Promise<Outcome> {
  const result = await bulkDecideFromQueue({
    items: targets.map((item) => ({ actionId: item.id, payloadHash: item.payloadHash })),
    verdict,
    note: note || undefined,
    viewedMs,
  });
  if (!result.ok) return { ok: false, error: decisionErrorMessage(result.error) };
  return { ok: true, notice: bulkNotice(result.data, targets) };
}
