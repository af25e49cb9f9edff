"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useSyncExternalStore } from "react";
import { queueNeighboursFromConsole } from "@/app/(console)/actions/queue-neighbour-actions";
import type { QueueNeighbours } from "@/lib/review/queue-neighbours";
import { carriedDecisionOutcome, isTyping } from "@/components/actions/decide-and-advance";

const noSubscription = () => () => {};

/**
 * The action page's keyboard: j and k open the next and previous action waiting for this reviewer
 * (queue order), e opens the argument editor; a and r (in the decision form) choose a verdict and
 * Cmd/Ctrl+Enter confirms it. Also shows the outcome of the decision made on the page before, when
 * deciding advanced here.
 */
export function ActionShortcuts({ actionId, canReview, canDecide, canEdit }: { actionId: string; canReview: boolean; canDecide: boolean; canEdit: boolean }) {
  const router = useRouter();
  const [neighbours, setNeighbours] = useState<QueueNeighbours | null>(null);
  const carried = useSyncExternalStore(noSubscription, () => carriedDecisionOutcome(actionId), () => null);

  useEffect(() => {
    if (!canReview) return;
    let live = true;
    void queueNeighboursFromConsole({ actionId }).then((result) => {
      if (live && result.ok) setNeighbours(result.data);
    });
    return () => {
      live = false;
    };
  }, [actionId, canReview]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target) || document.querySelector("dialog[open]")) return;
      const open = (id: string | null | undefined) => {
        if (!id) return;
        event.preventDefault();
        router.push(`/actions/${id}`);
      };
      if (event.key === "j") open(neighbours?.next);
      else if (event.key === "k") open(neighbours?.previous);
      else if (event.key === "e" && canEdit) {
        const edit = document.querySelector<HTMLButtonElement>('[data-shortcut="edit"]');
        if (edit) {
          event.preventDefault();
          edit.scrollIntoView({ block: "center" });
          edit.click();
        }
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [neighbours, canEdit, router]);

  const keys: Array<[string, string]> = [];
  if (canReview) keys.push(["j", "next waiting"], ["k", "previous"]);
  if (canDecide) keys.push(["a", "approve"], ["r", "reject"], ["Ctrl/⌘+Enter", "confirm"]);
  if (canEdit) keys.push(["e", "edit"]);
  return (
    <>
      {carried && <p role="status" className="mb-3 rounded-md bg-emerald-50 px-3 py-2 text-emerald-900">{carried}</p>}
      {keys.length > 0 && (
        <p aria-label="Keyboard shortcuts" className="mb-3 hidden flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 sm:flex">
          {keys.map(([key, what]) => (
            <span key={key}>
              <kbd className="rounded border border-slate-300 bg-white px-1 font-mono text-[0.7rem] text-slate-800 shadow-sm">{key}</kbd> {what}
            </span>
          ))}
          {canReview && neighbours && neighbours.next === null && <span>nothing else waits for you</span>}
        </p>
      )}
    </>
  );
}
