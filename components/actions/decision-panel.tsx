"use client";

import { useId, useRef, useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { FRAMED_MESSAGE, useFramed } from "@/components/ui/use-framed";
import { DecisionOutcome, type DecisionMessage } from "@/components/actions/decision-outcome";
import { useArmedVerdict, type Verdict } from "@/components/actions/use-armed-verdict";
import { useSubmitDecision } from "@/components/actions/use-submit-decision";
import { PasskeyElsewhereNote, passkeyElsewhereText, usePasskeyElsewhere } from "@/components/ui/passkey-elsewhere";

type DecisionPanelProps = {
  actionId: string;
  payloadHash: string;
  revision: number;
  canDecide: boolean;
  /** Why there is nothing to decide for this viewer (shown instead of the form). */
  blockedText: string;
  /** The revision's policy requires approving with a passkey (the reviewer's authenticator signs the receipt). */
  signatureRequired?: boolean;
  /** Approving leaves work on this page (code to run in the sandbox): no advancing to the next action then. */
  staysWhenApproved?: boolean;
  /** Why this revision cannot be approved now (its state changed since request): Reject stays. */
  approveBlockedText?: string | null;
  /** Where passkeys work (the relying party's origins): a signed approval opened elsewhere links there. */
  passkeyOrigins?: string[];
};

/**
 * Approve (note optional) or Reject (reason required, sent back to the agent). The form carries
 * only the action id, the hash shown on this page, the verdict and the note; the server reloads
 * everything else and re-checks every rule.
 */
export function DecisionPanel({ actionId, payloadHash, revision, canDecide, blockedText, signatureRequired = false, staysWhenApproved = false, approveBlockedText = null, passkeyOrigins = [] }: DecisionPanelProps) {
  const noteId = useId();
  const hintId = useId();
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [message, setMessage] = useState<DecisionMessage | null>(null);
  // The hash of what this reviewer has been reading. A live refresh may bring a newer revision;
  // the form keeps sending the hash first shown, so the server refuses instead of approving unseen changes.
  const [shownHash] = useState(payloadHash);
  const [shownRevision] = useState(revision);
  // Decisions never act from inside a frame (clickjacking); see use-framed.ts.
  const framed = useFramed();
  const elsewhere = usePasskeyElsewhere(passkeyOrigins);
  const passkeyElsewhere = signatureRequired ? elsewhere : null;
  const { armed, disarm, onNoteKeyDown } = useArmedVerdict({
    canDecide, approveBlocked: Boolean(approveBlockedText), noteRef, formRef,
    onNothingArmed: () => setMessage({ tone: "error", text: "Press a (approve) or r (reject) first, or use the buttons." }),
  });
  const { busy, submit } = useSubmitDecision({
    signatureRequired, staysWhenApproved, noteRef, setMessage, onRecorded: disarm,
    signatureUnavailable: passkeyElsewhere && `${passkeyElsewhereText(passkeyElsewhere)} Nothing was recorded; approve on the page linked above.`,
  });

  // After a decision the page refreshes and the form may give way to "you already voted"; this
  // component stays mounted, so the outcome message stays on screen.
  if (!canDecide) {
    return (
      <div className="space-y-2">
        <DecisionOutcome message={message} />
        <p className="text-[0.85rem] text-slate-700">{blockedText}</p>
      </div>
    );
  }
  return (
    <>
    {/* On a small screen the form is a bar fixed to the bottom, so the decision is always in view; the spacer keeps the page's end readable above it. */}
    <div aria-hidden="true" className="h-64 lg:hidden" />
    <form ref={formRef} onSubmit={submit} aria-label="Decision" data-testid="decision-form"
      className="space-y-2 max-lg:fixed max-lg:inset-x-0 max-lg:bottom-0 max-lg:z-30 max-lg:max-h-[60vh] max-lg:overflow-y-auto max-lg:border-t max-lg:border-slate-300 max-lg:bg-white max-lg:px-4 max-lg:py-3 max-lg:shadow-[0_-4px_16px_rgba(15,23,42,0.12)]">
      <input type="hidden" name="actionId" value={actionId} />
      <input type="hidden" name="payloadHash" value={shownHash} />
      {shownHash !== payloadHash && (
        <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
          This action changed while you were reading it (revision {revision} is current now). Reload the page to review and decide the current revision.
        </p>
      )}
      <label htmlFor={noteId} className="block font-medium">Note or reason</label>
      <textarea
        ref={noteRef}
        id={noteId}
        name="note"
        rows={3}
        maxLength={2000}
        aria-describedby={hintId}
        className="w-full rounded-md border border-slate-300 px-2 py-1.5 focus:border-indigo-600"
        placeholder="Optional for an approval; required for a rejection."
        onKeyDown={onNoteKeyDown}
      />
      <p id={hintId} className="text-xs text-slate-600" aria-live="polite">
        You decide revision {shownRevision}. A rejection&apos;s reason is sent back to the agent.
        {armed && <> <span className="font-semibold text-slate-900">Ctrl/⌘+Enter {armed === "approve" ? "approves" : "rejects"}</span>; Esc cancels.</>}
      </p>
      {signatureRequired && (
        <p className="text-xs text-slate-700">The policy requires a signed approval: your passkey signs a receipt of this revision&apos;s payload hash, policy version and state snapshot.</p>
      )}
      {passkeyElsewhere && <PasskeyElsewhereNote elsewhere={passkeyElsewhere} />}
      {framed && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-[0.85rem] text-red-800">{FRAMED_MESSAGE}</p>}
      {approveBlockedText && <p className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">{approveBlockedText}</p>}
      <DecisionButtons offerApprove={!approveBlockedText} armed={armed} busy={busy} disabled={busy !== null || framed !== false} signatureRequired={signatureRequired} />
      <DecisionOutcome message={message} />
    </form>
    </>
  );
}

function DecisionButtons({ offerApprove, armed, busy, disabled, signatureRequired }: {
  offerApprove: boolean;
  armed: Verdict | null;
  busy: Verdict | null;
  disabled: boolean;
  signatureRequired: boolean;
}) {
  return (
    <div className="flex gap-2">
      {offerApprove && <button type="submit" name="verdict" value="approve" className={`${buttonClass.approve} ${armed === "approve" ? "ring-2 ring-emerald-900 ring-offset-2" : ""}`} disabled={disabled} aria-busy={busy === "approve"}>
        {busy === "approve" ? (signatureRequired ? "Confirm with your passkey…" : "Approving…") : "Approve"}
      </button>}
      <button type="submit" name="verdict" value="reject" className={`${buttonClass.reject} ${armed === "reject" ? "ring-2 ring-red-900 ring-offset-2" : ""}`} disabled={disabled} aria-busy={busy === "reject"}>
        {busy === "reject" ? "Rejecting…" : "Reject"}
      </button>
    </div>
  );
}
