"use client";

import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, useTransition } from "react";
import { startAuthentication } from "@simplewebauthn/browser";
import { beginSignedApproval, decideFromConsole } from "@/app/(console)/actions/review-actions";
import { buttonClass } from "@/components/ui/button";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import { FRAMED_MESSAGE, useFramed } from "@/components/ui/use-framed";
import { carryDecisionOutcome, isTyping, nextUndecided } from "@/components/actions/decide-and-advance";

type Message = { tone: "ok" | "error"; text: string };

/**
 * Approve (note optional) or Reject (reason required, sent back to the agent). The form carries
 * only the action id, the hash shown on this page, the verdict and the note; the server reloads
 * everything else and re-checks every rule.
 */
export function DecisionPanel({
  actionId,
  payloadHash,
  revision,
  canDecide,
  blockedText,
  signatureRequired = false,
  staysWhenApproved = false,
  approveBlockedText = null,
}: {
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
}) {
  const router = useRouter();
  const noteId = useId();
  const hintId = useId();
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const [message, setMessage] = useState<Message | null>(null);
  const [busy, setBusy] = useState<"approve" | "reject" | null>(null);
  // The verdict chosen with a or r, confirmed with Cmd/Ctrl+Enter in the note.
  const [armed, setArmed] = useState<"approve" | "reject" | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [, startTransition] = useTransition();
  // The hash of what this reviewer has been reading. A live refresh may bring a newer revision;
  // the form keeps sending the hash first shown, so the server refuses instead of approving unseen changes.
  const [shownHash] = useState(payloadHash);
  const [shownRevision] = useState(revision);
  // Decisions never act from inside a frame (clickjacking); see use-framed.ts.
  const framed = useFramed();
  // When this reviewer was first shown the arguments: the decision reports the time since.
  const [shownAt] = useState(() => performance.now());

  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (window.top !== window.self) return;
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const form = new FormData(event.currentTarget);
    const verdict = submitter?.value === "reject" ? "reject" : "approve";
    const note = String(form.get("note") ?? "").trim();
    if (verdict === "reject" && !note) {
      setMessage({ tone: "error", text: "Write a reason for the rejection; it is sent back to the agent." });
      noteRef.current?.focus();
      return;
    }
    setBusy(verdict);
    setMessage(null);
    startTransition(async () => {
      const actionId = String(form.get("actionId"));
      const hash = String(form.get("payloadHash"));
      const viewedMs = Math.round(performance.now() - shownAt);
      const assertion = verdict === "approve" && signatureRequired ? await signReceipt(actionId, hash) : undefined;
      if (assertion === null) return setBusy(null);
      const result = await decideFromConsole({ actionId, payloadHash: hash, verdict, note: note || undefined, assertion, viewedMs });
      setBusy(null);
      if (!result.ok) {
        setMessage({ tone: "error", text: decisionErrorMessage(result.error) });
        return;
      }
      const { status, approvals, quorum } = result.data;
      const text =
        status === "pending"
          ? `Your approval is recorded: ${approvals} of ${quorum} approvals. Another reviewer must approve before it can run.`
          : status === "approved"
            ? `Approved (${approvals} of ${quorum}).`
            : "Rejected. The reason goes back to the agent.";
      // Decide and advance: on to the next action waiting for this reviewer, the outcome shown there.
      const next = staysWhenApproved && status === "approved" ? null : await nextUndecided(actionId);
      if (next) {
        carryDecisionOutcome(`${text} This is the next action waiting for you.`);
        router.push(`/actions/${next}`);
        return;
      }
      setArmed(null);
      setMessage({ tone: "ok", text });
      router.refresh();
    });
  };

  // a and r choose the verdict and put the cursor in the note; Cmd/Ctrl+Enter there confirms.
  useEffect(() => {
    if (!canDecide) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target) || document.querySelector("dialog[open]")) return;
      if (event.key !== "a" && event.key !== "r") return;
      if (event.key === "a" && approveBlockedText) return;
      event.preventDefault();
      setArmed(event.key === "a" ? "approve" : "reject");
      noteRef.current?.scrollIntoView({ block: "nearest" });
      noteRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [canDecide, approveBlockedText]);

  const confirmArmed = (event: React.KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape" && armed) {
      setArmed(null);
      return;
    }
    if (event.key !== "Enter" || !(event.metaKey || event.ctrlKey)) return;
    event.preventDefault();
    const button = formRef.current?.querySelector<HTMLButtonElement>(`button[value="${armed}"]`);
    if (armed && button) formRef.current?.requestSubmit(button);
    else setMessage({ tone: "error", text: "Press a (approve) or r (reject) first, or use the buttons." });
  };

  /** Asks the reviewer's authenticator to sign the server's receipt of this approval; null when it did not. */
  async function signReceipt(actionId: string, hash: string) {
    const started = await beginSignedApproval({ actionId, payloadHash: hash });
    if (!started.ok) {
      setMessage({ tone: "error", text: decisionErrorMessage(started.error) });
      return null;
    }
    try {
      return await startAuthentication({ optionsJSON: started.data.options });
    } catch (error) {
      setMessage({ tone: "error", text: `Your passkey did not sign the approval (${error instanceof Error ? error.message : "cancelled"}). Nothing was recorded; approve again.` });
      return null;
    }
  }

  const outcome = message && (
    <p role={message.tone === "error" ? "alert" : "status"} className={`rounded-md px-3 py-2 text-[0.85rem] ${message.tone === "ok" ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-800"}`}>
      {message.text}
    </p>
  );
  // After a decision the page refreshes and the form may give way to "you already voted"; this
  // component stays mounted, so the outcome message stays on screen.
  if (!canDecide) {
    return (
      <div className="space-y-2">
        {outcome}
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
        onKeyDown={confirmArmed}
      />
      <p id={hintId} className="text-xs text-slate-600" aria-live="polite">
        You decide revision {shownRevision}. A rejection&apos;s reason is sent back to the agent.
        {armed && <> <span className="font-semibold text-slate-900">Ctrl/⌘+Enter {armed === "approve" ? "approves" : "rejects"}</span>; Esc cancels.</>}
      </p>
      {signatureRequired && (
        <p className="text-xs text-slate-700">The policy requires a signed approval: your passkey signs a receipt of this revision&apos;s payload hash, policy version and state snapshot.</p>
      )}
      {framed && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-[0.85rem] text-red-800">{FRAMED_MESSAGE}</p>}
      {approveBlockedText && <p className="rounded-md bg-amber-50 px-3 py-2 text-[0.85rem] text-amber-950">{approveBlockedText}</p>}
      <div className="flex gap-2">
        {!approveBlockedText && <button type="submit" name="verdict" value="approve" className={`${buttonClass.approve} ${armed === "approve" ? "ring-2 ring-emerald-900 ring-offset-2" : ""}`} disabled={busy !== null || framed !== false} aria-busy={busy === "approve"}>
          {busy === "approve" ? (signatureRequired ? "Confirm with your passkey…" : "Approving…") : "Approve"}
        </button>}
        <button type="submit" name="verdict" value="reject" className={`${buttonClass.reject} ${armed === "reject" ? "ring-2 ring-red-900 ring-offset-2" : ""}`} disabled={busy !== null || framed !== false} aria-busy={busy === "reject"}>
          {busy === "reject" ? "Rejecting…" : "Reject"}
        </button>
      </div>
      {outcome}
    </form>
    </>
  );
}
