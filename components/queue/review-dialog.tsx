"use client";

import { useEffect, useId, useRef, type ReactNode, type RefObject } from "react";
import { buttonClass } from "@/components/ui/button";
import { RevealedShortText } from "@/components/ui/revealed-short-text";

type ReviewDialogProps = {
  verdict: "approve" | "reject";
  names: string[];
  pending: boolean;
  error: string | null;
  onConfirm: (note: string) => void;
  onClose: () => void;
  /** What the decision rests on (effect, top tags, state changed since request). */
  facts?: ReactNode;
  /** What "Re-read state" came to, which stays after the refresh that replaces the button with Approve. */
  outcome?: ReactNode;
  /** Shown instead of the Approve button when approving is not what to do now (the state changed: "Re-read state"). */
  approveReplacement?: ReactNode;
  /** The note typed before the dialog opened (the action page's note field). */
  defaultNote?: string;
  /** Where focus goes when the dialog closes; false: back to what opened it. */
  restoreFocus?: () => boolean;
};

function dialogTitle(verdict: "approve" | "reject", count: number): string {
  if (verdict === "approve") return count > 1 ? `Approve these ${count} actions?` : "Approve this action?";
  return count > 1 ? `Reject these ${count} actions?` : "Reject this action?";
}

/** Opens the dialog as a modal with focus in the note; on closing, focus goes back to what opened it. */
function useModal(dialogRef: RefObject<HTMLDialogElement | null>, noteRef: RefObject<HTMLTextAreaElement | null>, restoreFocus?: () => boolean) {
  // Read when the dialog closes: the latest, not the one of the first render.
  const restoreRef = useRef(restoreFocus);
  useEffect(() => {
    restoreRef.current = restoreFocus;
  });
  useEffect(() => {
    const dialog = dialogRef.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    noteRef.current?.focus();
    return () => {
      dialog?.close();
      if (restoreRef.current?.()) return;
      // Back to what opened it, if it is still there (a decided row leaves the list; the list then focuses the next row).
      if (opener?.isConnected) opener.focus();
    };
  }, [dialogRef, noteRef]);
}

/**
 * A modal confirmation for queue decisions: names every action it applies to, takes the note
 * (required for a rejection — it goes back to the agent), and confirms with a button named after
 * the verdict or Cmd/Ctrl+Enter. A native <dialog> opened with showModal: the rest of the page is
 * inert while it is open (focus stays inside), Escape or "Cancel" closes it without deciding
 * anything, and focus goes back to what opened it.
 */
export function ReviewDialog({ verdict, names, pending, error, onConfirm, onClose, facts, outcome, approveReplacement, defaultNote, restoreFocus }: ReviewDialogProps) {
  const titleId = useId();
  const noteId = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const approving = verdict === "approve";
  useModal(dialogRef, noteRef, restoreFocus);

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      className="mx-auto mt-24 w-[calc(100%-2rem)] max-w-lg rounded-lg bg-white p-5 text-slate-900 shadow-xl ring-1 ring-slate-900/10 backdrop:bg-slate-900/40"
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          // A stale action offers "Re-read state" instead of Approve: Ctrl/Cmd+Enter must not approve it either.
          if (approving && approveReplacement) return;
          onConfirm(String(new FormData(event.currentTarget).get("note") ?? ""));
        }}
      >
        <h2 id={titleId} className="text-base font-semibold">{dialogTitle(verdict, names.length)}</h2>
        <ul aria-label="Actions to decide" tabIndex={0} className="mt-2 max-h-48 list-disc overflow-auto pl-5 text-slate-700">
          {names.map((name, i) => <li key={i}><RevealedShortText text={name} /></li>)}
        </ul>
        {facts}
        <label htmlFor={noteId} className="mt-4 block font-medium">
          {approving ? "Note (optional)" : "Reason (required, sent back to the agent)"}
        </label>
        <textarea
          ref={noteRef}
          id={noteId}
          name="note"
          rows={3}
          required={!approving}
          maxLength={2000}
          defaultValue={defaultNote}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
          className="mt-1 w-full rounded-md border border-slate-300 px-2 py-1.5 focus:border-indigo-600"
        />
        <p className="mt-1 text-xs text-slate-600">
          <kbd className="font-mono">Ctrl</kbd>/<kbd className="font-mono">⌘</kbd>+<kbd className="font-mono">Enter</kbd> {approving ? "approves" : "rejects"} · <kbd className="font-mono">Esc</kbd> cancels
        </p>
        {outcome}
        {error && <p role="alert" className="mt-2 rounded-md bg-red-50 px-3 py-2 text-red-800">{error}</p>}
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" className={buttonClass.secondary} onClick={onClose}>Cancel</button>
          {approving && approveReplacement ? approveReplacement : (
            <button type="submit" className={approving ? buttonClass.approve : buttonClass.reject} disabled={pending} aria-busy={pending}>
              {pending ? (approving ? "Approving…" : "Rejecting…") : approving ? "Approve" : "Reject"}
            </button>
          )}
        </div>
      </form>
    </dialog>
  );
}
