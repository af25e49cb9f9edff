"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useSyncExternalStore, useTransition } from "react";
import { bulkDecideFromQueue, type BulkItemResult } from "@/app/(console)/queue/bulk-actions";
import { decideFromConsole } from "@/app/(console)/actions/review-actions";
import { RiskBadge } from "@/components/ui/badges";
import { buttonClass } from "@/components/ui/button";
import { TimeLeft } from "@/components/ui/time";
import { bulkRefusal, isBulkCandidate } from "@/lib/review/bulk-eligibility";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import type { QueueItem } from "@/lib/review/queue-item";
import { moreFieldsText } from "@/lib/risk/group-risk-tags";
import { ReviewDialog } from "@/components/queue/review-dialog";
import { DecisionFacts } from "@/components/queue/decision-facts";
import { StateChangedNotice } from "@/components/queue/state-changed-notice";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";
import { RevealedShortText } from "@/components/ui/revealed-short-text";
import { FRAMED_MESSAGE, useFramed } from "@/components/ui/use-framed";

const REFRESH_MS = 8000;
/** Where the cursor was, so returning to the queue (from an action page, or after a reload) keeps it. */
const CURSOR_KEY = "countersign:queue-cursor";
/** The queue's keys (the hint bar says what each does). */
const QUEUE_SHORTCUTS = "j k o Enter a r x";
const noSubscription = () => () => {};

type Dialog = { verdict: "approve" | "reject"; ids: string[] };
type Notice = { tone: "ok" | "error"; text: string; details?: string[] };

const TAG_TONE: Record<string, string> = {
  low: "text-emerald-800 bg-emerald-50",
  medium: "text-amber-900 bg-amber-50",
  high: "text-orange-900 bg-orange-50",
  critical: "text-red-900 bg-red-50",
};

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** The reviewer's queue: live, keyboard-driven, with bulk decisions only where they are safe. */
export function QueueList({ items }: { items: QueueItem[] }) {
  const router = useRouter();
  // The cursor: the row's id and its place. When the row leaves the list (decided, expired), the
  // row that takes its place gets the cursor, not row 1. Until it moves, it is where it was when
  // this tab last showed the queue.
  const [cursor, setCursor] = useState<{ id: string; index: number } | null>(null);
  const savedCursorId = useSyncExternalStore(noSubscription, () => sessionStorage.getItem(CURSOR_KEY), () => null);
  // False in the server's HTML and while it hydrates; true once the page runs (and the keyboard
  // handler below is attached): only then does the list offer its shortcuts (aria-keyshortcuts).
  const keysReady = useSyncExternalStore(noSubscription, () => true, () => false);
  const setCursorId = (id: string) => setCursor({ id, index: Math.max(0, items.findIndex((item) => item.id === id)) });
  // After a decision from the dialog, focus goes to the row the cursor moved to once the list refreshed.
  const focusCursorRow = useRef(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [pending, startTransition] = useTransition();
  // Decisions never act from inside a frame (clickjacking); see use-framed.ts.
  const framed = useFramed();

  // Rows that left the queue fall out of the selection and the cursor moves to a row that exists.
  const present = new Set(items.map((item) => item.id));
  const found = items.findIndex((item) => item.id === (cursor?.id ?? savedCursorId));
  const cursorIndex = found >= 0 ? found : Math.min(cursor?.index ?? 0, Math.max(0, items.length - 1));
  const current = items[cursorIndex] ?? null;
  const selectedItems = items.filter((item) => selected.has(item.id));
  const bulkProblem = selectedItems.length > 0 ? bulkRefusal(selectedItems) : null;
  const anyBulk = items.some(isBulkCandidate);

  useEffect(() => {
    // Only once it moved here: before that, the saved place is not known yet while hydrating.
    if (cursor && current) sessionStorage.setItem(CURSOR_KEY, current.id);
    if (focusCursorRow.current && current) {
      focusCursorRow.current = false;
      document.querySelector<HTMLElement>(`#queue-row-${CSS.escape(current.id)} a`)?.focus();
    }
  });

  // Live updates: re-render the server list while the tab is visible and no decision is open.
  useEffect(() => {
    if (dialog) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [dialog, router]);

  const decidable = (item: QueueItem | null) => framed === false && item !== null && item.myVote === null && item.blockedReason === null;

  const openDialog = (verdict: "approve" | "reject", ids: string[]) => {
    setDialogError(null);
    setDialog({ verdict, ids });
  };
  // Since when the open confirmation has shown these payloads (performance.now()); decisions report
  // the time since. A new revision shown in the open dialog (a re-read of the state) starts it afresh.
  const shownSince = useRef<{ hashes: string; at: number } | null>(null);
  const dialogHashes = dialog ? items.filter((item) => dialog.ids.includes(item.id)).map((item) => item.payloadHash).join(",") : null;
  useEffect(() => {
    if (dialogHashes === null) shownSince.current = null;
    else if (shownSince.current?.hashes !== dialogHashes) shownSince.current = { hashes: dialogHashes, at: performance.now() };
  }, [dialogHashes]);

  const move = (delta: number) => {
    if (items.length === 0) return;
    const next = items[Math.min(items.length - 1, Math.max(0, cursorIndex + delta))];
    setCursorId(next.id);
    document.getElementById(`queue-row-${next.id}`)?.scrollIntoView({ block: "nearest" });
  };

  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set([...old].filter((x) => present.has(x)));
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // Keyboard shortcuts (shown in the hint bar). Typing in a field or a dialog never triggers them.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (dialog || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return;
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
            setNotice({ tone: "error", text: framed ? FRAMED_MESSAGE : current.blockedReason ?? "You have already voted on this revision; another reviewer must add the next vote." });
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

  const confirm = (note: string) => {
    if (!dialog || window.top !== window.self) return;
    const targets = items.filter((item) => dialog.ids.includes(item.id));
    const viewedMs = Math.round(performance.now() - (shownSince.current?.at ?? performance.now()));
    if (dialog.verdict === "reject" && !note.trim()) {
      setDialogError("Write a reason for the rejection; it is sent back to the agent.");
      return;
    }
    startTransition(async () => {
      if (targets.length === 1) {
        const [item] = targets;
        const result = await decideFromConsole({ actionId: item.id, payloadHash: item.payloadHash, verdict: dialog.verdict, note: note || undefined, viewedMs });
        if (!result.ok) {
          setDialogError(decisionErrorMessage(result.error));
          return;
        }
        const { status, approvals, quorum } = result.data;
        // Decide and advance: the cursor goes to the next row still waiting for this reviewer.
        const at = items.findIndex((other) => other.id === item.id);
        const next = [...items.slice(at + 1), ...items.slice(0, at)].find((other) => decidable(other));
        if (next) {
          setCursorId(next.id);
          focusCursorRow.current = true;
        }
        setNotice({
          tone: "ok",
          text:
            status === "pending"
              ? `Your approval of ${item.tool} is recorded (${approvals} of ${quorum}); it waits for another reviewer.`
              : `${item.tool} is ${status}.`,
        });
      } else {
        const result = await bulkDecideFromQueue({
          items: targets.map((item) => ({ actionId: item.id, payloadHash: item.payloadHash })),
          verdict: dialog.verdict,
          note: note || undefined,
          viewedMs,
        });
        if (!result.ok) {
          setDialogError(decisionErrorMessage(result.error));
          return;
        }
        setNotice(bulkNotice(result.data, targets));
        setSelected(new Set());
      }
      setDialog(null);
      router.refresh();
    });
  };

  const dialogItems = dialog ? items.filter((item) => dialog.ids.includes(item.id)) : [];
  const dialogNames = dialogItems.map((item) => `${item.tool}: ${item.summary}`);
  const staleInDialog = dialogItems.filter((item) => item.stateChanges);

  return (
    <div>
      <KeyboardHints bulk={anyBulk} />
      {framed && <p role="alert" className="mb-3 rounded-md bg-red-50 px-3 py-2 text-red-800">{FRAMED_MESSAGE}</p>}
      {notice && (
        <div role="status" className={`mb-3 rounded-md px-3 py-2 ${notice.tone === "ok" ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-800"}`}>
          <p>{notice.text}</p>
          {notice.details && <ul className="mt-1 list-disc pl-5">{notice.details.map((d, i) => <li key={i}>{d}</li>)}</ul>}
        </div>
      )}
      {selectedItems.length > 0 && (
        <div className="mb-3 flex flex-wrap items-center gap-3 rounded-md border border-slate-200 bg-white px-3 py-2">
          <span className="font-medium">{selectedItems.length} selected</span>
          <button type="button" className={buttonClass.approve} disabled={bulkProblem !== null || pending || framed !== false} onClick={() => openDialog("approve", selectedItems.map((i) => i.id))}>
            Approve selected
          </button>
          <button type="button" className={buttonClass.reject} disabled={bulkProblem !== null || pending || framed !== false} onClick={() => openDialog("reject", selectedItems.map((i) => i.id))}>
            Reject selected
          </button>
          <button type="button" className={buttonClass.secondary} onClick={() => setSelected(new Set())}>Clear</button>
          {bulkProblem && <span className="text-amber-900">{bulkProblem}</span>}
        </div>
      )}
      <ul aria-label="Pending actions" aria-keyshortcuts={keysReady ? QUEUE_SHORTCUTS : undefined} className="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white">
        {items.map((item, index) => {
          const active = index === cursorIndex;
          return (
            <li
              key={item.id}
              id={`queue-row-${item.id}`}
              aria-current={active ? "true" : undefined}
              data-action-id={item.id}
              onClick={() => setCursorId(item.id)}
              onFocus={() => setCursorId(item.id)}
              className={`grid grid-cols-[1.5rem_minmax(0,1fr)_auto] gap-x-3 px-3 py-2.5 ${active ? "bg-indigo-50/70 shadow-[inset_3px_0_0_0_var(--color-indigo-600)]" : "hover:bg-slate-50"}`}
            >
              <div className="pt-0.5">
                {isBulkCandidate(item) && (
                  <input
                    type="checkbox"
                    aria-label={`Select ${item.tool}: ${item.summary}`}
                    checked={selected.has(item.id)}
                    onChange={() => toggle(item.id)}
                    className="size-4 accent-indigo-700"
                  />
                )}
              </div>
              <div className="min-w-0">
                <div className="flex flex-wrap items-center gap-2">
                  <RiskBadge level={item.riskLevel} />
                  <Link href={`/actions/${item.id}`} className="font-medium text-indigo-800 hover:underline">
                    <span className="font-mono text-[0.8rem]">{item.tool}</span>
                    <span className="text-slate-400"> · </span>
                    <span className="text-slate-900"><RevealedShortText text={item.summary} /></span>
                  </Link>
                  {item.revision > 1 && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-700">revision {item.revision}</span>}
                </div>
                <div className="mt-1 flex flex-wrap gap-1">
                  {item.riskTags.map((tag) => (
                    <span key={tag.id} title={tag.reason} className={`rounded px-1.5 py-0.5 text-xs ${TAG_TONE[tag.severity]}`}>
                      {tag.id}{tag.fields.length > 0 && <span className="font-mono"> · {tag.fields.join(", ")}</span>}{moreFieldsText(tag.moreFields)} <span className="font-normal">({tag.severity})</span>
                    </span>
                  ))}
                  {item.moreTags > 0 && <span className="px-1 text-xs text-slate-500">+{item.moreTags} more</span>}
                </div>
                {item.stateChanges && <StateChangedNotice changes={item.stateChanges} more={item.moreStateChanges} />}
                <p className="mt-1 text-xs text-slate-600">
                  Requested by <span className="text-slate-800">{item.requesterLabel}</span>
                  {item.task && (
                    <>
                      {" "}for task{" "}
                      <Link href={`/tasks/${item.task.id}`} className="text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">
                        {truncate(item.task.instruction, 70)}
                      </Link>
                    </>
                  )}
                </p>
              </div>
              <div className="flex flex-col items-end gap-1 text-right text-xs text-slate-700">
                <TimeLeft until={item.expiresAt} />
                <span>
                  <span className="font-semibold text-slate-900">{item.approvals}</span> of {item.quorum} approval{item.quorum === 1 ? "" : "s"}
                </span>
                {item.myVote && <span className="rounded bg-slate-100 px-1.5 py-0.5 font-medium text-slate-800">You {item.myVote === "approve" ? "approved" : "rejected"}</span>}
                {item.blockedReason && <span className="max-w-48 text-amber-900">{item.blockedReason}</span>}
                {decidable(item) && (
                  <span className="flex gap-1">
                    {item.stateChanges ? (
                      <RereadStateButton actionId={item.id} revision={item.revision} payloadHash={item.payloadHash} label={`${item.tool}: ${item.summary}`} compact />
                    ) : (
                      <button type="button" className={`${buttonClass.approve} px-2 py-0.5 text-xs`} onClick={() => openDialog("approve", [item.id])} aria-label={`Approve ${item.tool}: ${item.summary}`}>
                        Approve
                      </button>
                    )}
                    <button type="button" className={`${buttonClass.reject} px-2 py-0.5 text-xs`} onClick={() => openDialog("reject", [item.id])} aria-label={`Reject ${item.tool}: ${item.summary}`}>
                      Reject
                    </button>
                  </span>
                )}
                {decidable(item) && <RereadOutcome actionId={item.id} revision={item.revision} className="max-w-64" />}
              </div>
            </li>
          );
        })}
      </ul>
      {dialog && (
        <ReviewDialog
          verdict={dialog.verdict}
          names={dialogNames}
          pending={pending}
          error={dialogError}
          onConfirm={confirm}
          onClose={() => setDialog(null)}
          facts={<DecisionFacts items={dialogItems} />}
          outcome={dialogItems.length === 1 ? <RereadOutcome actionId={dialogItems[0].id} revision={dialogItems[0].revision} className="mt-2 text-sm" /> : null}
          approveReplacement={staleInDialog.length === 0 ? undefined : staleInDialog.length === 1 && dialogItems.length === 1 ? (
            <RereadStateButton actionId={staleInDialog[0].id} revision={staleInDialog[0].revision} payloadHash={staleInDialog[0].payloadHash} label={dialogNames[0]} />
          ) : (
            <span className="self-center text-amber-900">The state of {staleInDialog.length} of these changed since request: re-read each first.</span>
          )}
        />
      )}
    </div>
  );
}

function bulkNotice(results: BulkItemResult[], targets: QueueItem[]): Notice {
  const name = (id: string) => {
    const item = targets.find((t) => t.id === id);
    return item ? `${item.tool}: ${item.summary}` : id;
  };
  const failed = results.filter((r) => !r.ok);
  return {
    tone: failed.length ? "error" : "ok",
    text: failed.length ? `${results.length - failed.length} of ${results.length} decided; ${failed.length} refused.` : `All ${results.length} decided.`,
    details: results.map((r) => (r.ok ? `${name(r.actionId)} — ${r.status}` : `${name(r.actionId)} — refused: ${decisionErrorMessage(r)}`)),
  };
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function KeyboardHints({ bulk }: { bulk: boolean }) {
  const keys: Array<[string, string]> = [["j", "next"], ["k", "previous"], ["Enter / o", "open"], ["a", "approve"], ["r", "reject"]];
  if (bulk) keys.push(["x", "select for bulk"]);
  return (
    <p aria-label="Keyboard shortcuts" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
      {keys.map(([key, what]) => (
        <span key={key}>
          <kbd className="rounded border border-slate-300 bg-white px-1 font-mono text-[0.7rem] text-slate-800 shadow-sm">{key}</kbd> {what}
        </span>
      ))}
    </p>
  );
}
