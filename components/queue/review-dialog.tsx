"use client";

import { useId, type ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";
import { RevealedText } from "@/components/ui/revealed-text";

/**
 * A modal confirmation for queue decisions: names every action it applies to, takes the note
 * (required for a rejection — it goes back to the agent), and confirms with a button named after
 * the verdict. Escape or "Cancel" closes it without deciding anything.
 */
export function ReviewDialog({
  verdict,
  names,
  pending,
  error,
  onConfirm,
  onClose,
  facts,
  approveReplacement,
}: {
  verdict: "approve" | "reject";
  names: string[];
  pending: boolean;
  error: string | null;
  onConfirm: (note: string) => void;
  onClose: () => void;
  /** What the decision rests on (effect, top tags, state changed since request). */
  facts?: ReactNode;
  /** Shown instead of the Approve button when approving is not what to do now (the state changed: "Re-read state"). */
  approveReplacement?: ReactNode;
}) {
  const titleId = useId();
  const noteId = useId();
  const approving = verdict === "approve";
  const title = approving
    ? names.length > 1 ? `Approve these ${names.length} actions?` : "Approve this action?"
    : names.length > 1 ? `Reject these ${names.length} actions?` : "Reject this action?";
  return (
    <div className="fixed inset-0 z-40 flex items-start justify-center bg-slate-900/40 px-4 pt-24" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <form
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="w-full max-w-lg rounded-lg bg-white p-5 shadow-xl ring-1 ring-slate-900/10"
        onSubmit={(event) => {
          event.preventDefault();
          onConfirm(String(new FormData(event.currentTarget).get("note") ?? ""));
        }}
      >
        <h2 id={titleId} className="text-base font-semibold">{title}</h2>
        <ul className="mt-2 max-h-48 list-disc overflow-auto pl-5 text-slate-700">
          {names.map((name, i) => <li key={i}><RevealedText text={name} /></li>)}
        </ul>
        {facts}
        <label htmlFor={noteId} className="mt-4 block font-medium">
          {approving ? "Note (optional)" : "Reason (required, sent back to the agent)"}
        </label>
        <textarea
          id={noteId}
          name="note"
          rows={3}
          required={!approving}
          maxLength={2000}
          autoFocus
          className="mt-1 w-full rounded-md border border-slate-300 px-2 py-1.5 focus:border-indigo-600"
        />
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
    </div>
  );
}
