"use client";

import { useId, useRef, useState, type KeyboardEventHandler, type RefObject } from "react";
import { buttonClass } from "@/components/ui/button";
import { FRAMED_MESSAGE, useFramed } from "@/components/ui/use-framed";
import { DecisionOutcome, type DecisionMessage } from "@/components/actions/decision-outcome";
import { useArmedVerdict, type Verdict } from "@/components/actions/use-armed-verdict";
import { useSubmitDecision } from "@/components/actions/use-submit-decision";
import { useDecisionOffer, type DecisionOffer } from "@/components/actions/use-decision-offer";
import { RereadStateButton } from "@/components/actions/reread-state-button";
import { RereadOutcome } from "@/components/actions/reread-outcome";
import { ReviewDialog } from "@/components/queue/review-dialog";
import { StateChangedNotice } from "@/components/queue/state-changed-notice";
import { PasskeyElsewhereNote, passkeyElsewhereText, usePasskeyElsewhere } from "@/components/ui/passkey-elsewhere";
import { RevealedShortText } from "@/components/ui/revealed-short-text";
import type { LiveOffer } from "@/lib/review/live-decision";
import type { GrantTerms } from "@/lib/grants/grant-terms";
import type { GrantDraft } from "@/lib/grants/grant-draft";
import { GrantTermsFields, grantSentence, grantTermsFrom, grantTermsProblem } from "@/components/actions/grant-terms-fields";

type DecisionPanelProps = {
  actionId: string;
  payloadHash: string;
  revision: number;
  /** What it does, in the confirmation: the preview's summary. */
  summary: string;
  canDecide: boolean;
  /** Why there is nothing to decide for this viewer (shown instead of the form). */
  blockedText: string;
  /** The revision's policy requires approving with a passkey (the reviewer's authenticator signs the receipt). */
  signatureRequired?: boolean;
  /** Approving leaves work on this page (code to run in the sandbox): no advancing to the next action then. */
  staysWhenApproved?: boolean;
  /** The state it rests on changed since request (as read with the page): Re-read, not Approve; Reject stays. */
  stateChanged?: boolean;
  /** Where passkeys work (the relying party's origins): a signed approval opened elsewhere links there. */
  passkeyOrigins?: string[];
  /** "This and calls like it", pre-filled; null when no standing grant can be approved from this action. */
  grantDraft?: GrantDraft | null;
};

const STALE_TEXT = "The state changed since request: re-read it to approve the state as it is now; you can still reject this revision.";
const SIGNATURE_TEXT = "The policy requires a signed approval: your passkey signs a receipt of this revision's payload hash, policy version and state snapshot.";

type PasskeyElsewhere = ReturnType<typeof usePasskeyElsewhere>;

/**
 * Approve (confirmed in a dialog, as in the queue; note optional) or Reject (reason required, sent
 * back to the agent). While open it follows the action (useDecisionOffer). The form carries only the
 * action id, the hash shown on this page, the verdict and the note; the server reloads everything
 * else and re-checks every rule.
 */
export function DecisionPanel({ actionId, payloadHash, revision, summary, canDecide, blockedText, signatureRequired = false, staysWhenApproved = false, stateChanged = false, passkeyOrigins = [], grantDraft = null }: DecisionPanelProps) {
  const decision = useDecisionOffer({ actionId, payloadHash, revision, canDecide, stateChanged });
  const { shown, offer, moved, stale, closed } = decision;
  // Decisions never act from inside a frame (clickjacking); see use-framed.ts.
  const framed = useFramed();
  const elsewhere = usePasskeyElsewhere(passkeyOrigins);
  const passkeyElsewhere = signatureRequired ? elsewhere : null;
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const controls = useDecisionControls({ actionId, decision, canDecide, signatureRequired, staysWhenApproved, passkeyElsewhere, noteRef, formRef });
  const { busy, confirming } = controls;

  // After a decision the page refreshes and the form may give way to "you already voted"; this
  // component stays mounted, so the outcome message stays on screen.
  if (!canDecide) {
    return (
      <div className="space-y-2">
        <DecisionOutcome message={controls.message} />
        <p className="text-[0.85rem] text-slate-700">{blockedText}</p>
      </div>
    );
  }
  const rereadButton = <RereadStateButton actionId={actionId} revision={shown.revision} payloadHash={shown.payloadHash} label={summary} />;
  const disabled = busy !== null || framed !== false;
  return (
    <>
    {/* On a small screen the form is a bar fixed to the bottom, so the decision is always in view; the spacer keeps the page's end readable above it. */}
    <div aria-hidden="true" className="h-64 lg:hidden" />
    <form ref={formRef} onSubmit={controls.submit} aria-label="Decision" data-testid="decision-form"
      className="space-y-2 max-lg:fixed max-lg:inset-x-0 max-lg:bottom-0 max-lg:z-30 max-lg:max-h-[60vh] max-lg:overflow-y-auto max-lg:border-t max-lg:border-slate-300 max-lg:bg-white max-lg:px-4 max-lg:py-3 max-lg:shadow-[0_-4px_16px_rgba(15,23,42,0.12)]">
      <input type="hidden" name="actionId" value={actionId} />
      <input type="hidden" name="payloadHash" value={shown.payloadHash} />
      <NoLongerWaiting moved={moved} offer={offer} revision={revision} />
      <NoteField noteRef={noteRef} revision={shown.revision} armed={controls.armed} onKeyDown={controls.onNoteKeyDown} />
      {signatureRequired && <p className="text-xs text-slate-700">{SIGNATURE_TEXT}</p>}
      {grantDraft && <GrantTermsFields draft={grantDraft} />}
      {passkeyElsewhere && <PasskeyElsewhereNote elsewhere={passkeyElsewhere} />}
      {framed && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-[0.85rem] text-red-800">{FRAMED_MESSAGE}</p>}
      {stale && <StaleAlert offer={offer} className="text-[0.85rem]" />}
      <DecisionButtons
        approve={stale ? rereadButton : moved || closed ? null : (
          <ApproveButton onClick={controls.openConfirmation} disabled={disabled} busy={busy} signatureRequired={signatureRequired} />
        )}
        armed={controls.armed} busy={busy} disabled={disabled}
      />
      <DecisionOutcome message={controls.message} />
    </form>
    {confirming && (
      <ApproveConfirmation
        actionId={actionId} revision={shown.revision} summary={summary} offer={offer} stale={stale} gone={moved || closed}
        signatureText={signatureRequired ? SIGNATURE_TEXT : null} passkeyElsewhere={passkeyElsewhere} rereadButton={rereadButton}
        pending={busy === "approve"} error={confirming.error} note={confirming.note} grant={confirming.grant}
        onConfirm={(note) => void controls.confirmApprove(note)} onClose={controls.closeConfirmation}
      />
    )}
    </>
  );
}

/** The open confirmation, with what the form carried when Approve was pressed (what is sent). */
type Confirming = { note: string; actionId: string; payloadHash: string; error: string | null; grant?: GrantTerms };

/**
 * The form's moving parts: the verdict armed from the keyboard, the submission, and Approve's
 * confirmation, whose refusal is said once in the dialog and moves to the form when it closes.
 */
function useDecisionControls({ actionId, decision, canDecide, signatureRequired, staysWhenApproved, passkeyElsewhere, noteRef, formRef }: {
  actionId: string;
  decision: DecisionOffer;
  canDecide: boolean;
  signatureRequired: boolean;
  staysWhenApproved: boolean;
  passkeyElsewhere: PasskeyElsewhere;
  noteRef: RefObject<HTMLTextAreaElement | null>;
  formRef: RefObject<HTMLFormElement | null>;
}) {
  const [message, setMessage] = useState<DecisionMessage | null>(null);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const approveBlocked = decision.stale || decision.moved || decision.closed;
  const openConfirmation = () => {
    if (approveBlocked) return;
    // Read before the dialog re-renders the form: what the form carries is what is sent, as for a rejection.
    const form = new FormData(formRef.current ?? undefined);
    const problem = grantTermsProblem(form);
    if (problem) {
      setMessage({ tone: "error", text: problem });
      return;
    }
    setConfirming({
      note: String(form.get("note") ?? ""), actionId: String(form.get("actionId") ?? actionId), payloadHash: String(form.get("payloadHash") ?? decision.shown.payloadHash), error: null,
      grant: grantTermsFrom(form),
    });
  };
  const { armed, disarm, onNoteKeyDown } = useArmedVerdict({
    canDecide, approveBlocked, noteRef, formRef, onApprove: openConfirmation,
    onNothingArmed: () => setMessage({ tone: "error", text: "Press a (approve) or r (reject) first, or use the buttons." }),
  });
  const { busy, decide, submit } = useSubmitDecision({
    signatureRequired, staysWhenApproved, noteRef, setMessage, onRecorded: disarm,
    signatureUnavailable: passkeyElsewhere && `${passkeyElsewhereText(passkeyElsewhere)} Nothing was recorded; approve on the page linked above.`,
  });
  const confirmApprove = async (note: string) => {
    if (!confirming) return;
    const result = await decide({ actionId: confirming.actionId, payloadHash: confirming.payloadHash, verdict: "approve", note, grant: confirming.grant });
    if (result.ok) {
      setConfirming(null);
      return;
    }
    if (result.code === "state_changed") decision.refusedAsStale();
    // Said once, in the dialog; it moves to the form when the dialog closes.
    setMessage(null);
    setConfirming((open) => (open ? { ...open, error: result.text } : open));
  };
  const closeConfirmation = () => {
    if (confirming?.error) setMessage({ tone: "error", text: confirming.error });
    setConfirming(null);
  };
  return { message, confirming, openConfirmation, confirmApprove, closeConfirmation, armed, onNoteKeyDown, busy, submit };
}

/** Why this revision can no longer be decided here: another is current, or the action stopped waiting. */
function NoLongerWaiting({ moved, offer, revision }: { moved: boolean; offer: LiveOffer; revision: number }) {
  return (
    <>
      {moved && (
        <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">
          This action changed while you were reading it (revision {offer.offer === "moved" ? offer.revision : revision} is current now). Reload the page to review and decide the current revision.
        </p>
      )}
      {offer.offer === "closed" && <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">This action no longer waits for a decision: it is {offer.status.replaceAll("_", " ")}.</p>}
    </>
  );
}

function NoteField({ noteRef, revision, armed, onKeyDown }: {
  noteRef: RefObject<HTMLTextAreaElement | null>;
  revision: number;
  armed: "reject" | null;
  onKeyDown: KeyboardEventHandler<HTMLTextAreaElement>;
}) {
  const noteId = useId();
  const hintId = useId();
  return (
    <>
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
        onKeyDown={onKeyDown}
      />
      <p id={hintId} className="text-xs text-slate-600" aria-live="polite">
        You decide revision {revision}. Approve asks you to confirm; a rejection&apos;s reason is sent back to the agent.
        {armed && <> <span className="font-semibold text-slate-900">Ctrl/⌘+Enter rejects</span>; Esc cancels.</>}
      </p>
    </>
  );
}

function ApproveButton({ onClick, disabled, busy, signatureRequired }: { onClick: () => void; disabled: boolean; busy: Verdict | null; signatureRequired: boolean }) {
  return (
    <button type="button" onClick={onClick} className={`${buttonClass.approve}`} disabled={disabled} aria-busy={busy === "approve"}>
      {busy === "approve" ? (signatureRequired ? "Confirm with your passkey…" : "Approving…") : "Approve"}
    </button>
  );
}

function DecisionButtons({ approve, armed, busy, disabled }: {
  approve: React.ReactNode;
  armed: "reject" | null;
  busy: Verdict | null;
  disabled: boolean;
}) {
  return (
    <div className="flex flex-wrap gap-2">
      {approve}
      <button type="submit" name="verdict" value="reject" className={`${buttonClass.reject} ${armed === "reject" ? "ring-2 ring-red-900 ring-offset-2" : ""}`} disabled={disabled} aria-busy={busy === "reject"}>
        {busy === "reject" ? "Rejecting…" : "Reject"}
      </button>
    </div>
  );
}

function StaleAlert({ offer, className = "" }: { offer: LiveOffer; className?: string }) {
  return (
    <div role="alert" className={`rounded-md bg-amber-50 px-3 py-2 text-amber-950 ${className}`}>
      {STALE_TEXT}
      {offer.offer === "reread" && offer.changes.length > 0 && <StateChangedNotice changes={offer.changes} more={offer.moreChanges} />}
    </div>
  );
}

/** The confirmation Approve opens: what is approved, what signing asks, and Re-read once the state moved. */
function ApproveConfirmation({ actionId, revision, summary, offer, stale, gone, signatureText, passkeyElsewhere, rereadButton, pending, error, note, grant, onConfirm, onClose }: {
  actionId: string;
  revision: number;
  summary: string;
  offer: LiveOffer;
  stale: boolean;
  /** Another revision is current, or the action stopped waiting. */
  gone: boolean;
  /** Set when the policy requires a signed approval. */
  signatureText: string | null;
  passkeyElsewhere: PasskeyElsewhere;
  rereadButton: React.ReactNode;
  pending: boolean;
  error: string | null;
  note: string;
  /** The standing grant approved with it, if the reviewer asked for one. */
  grant?: GrantTerms;
  onConfirm: (note: string) => void;
  onClose: () => void;
}) {
  return (
    <ReviewDialog
      verdict="approve"
      names={[summary]}
      pending={pending}
      error={error}
      defaultNote={note}
      onConfirm={onConfirm}
      onClose={onClose}
      facts={
        <div className="mt-3 space-y-2 text-[0.85rem]">
          <p className="text-slate-700">You approve revision {revision}: <RevealedShortText text={summary} /></p>
          {grant && <p role="note" data-testid="grant-confirmation" className="rounded-md bg-amber-50 px-3 py-2 text-amber-950">{grantSentence(grant)}</p>}
          {signatureText && <p role="note" className="rounded-md bg-indigo-50 px-3 py-2 text-indigo-950">{signatureText} Your browser asks for it when you confirm.</p>}
          {passkeyElsewhere && <PasskeyElsewhereNote elsewhere={passkeyElsewhere} />}
          {stale && <StaleAlert offer={offer} />}
          {gone && <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-amber-950">This action changed while the dialog was open. Close this and review it again.</p>}
        </div>
      }
      outcome={<RereadOutcome actionId={actionId} revision={revision} className="mt-2 text-sm" />}
      approveReplacement={stale ? rereadButton : gone ? <span className="self-center text-amber-900">Nothing to approve here now.</span> : passkeyElsewhere ? <span className="self-center text-amber-900">Approve on the page linked above.</span> : undefined}
    />
  );
}
