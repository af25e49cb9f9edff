"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type RefObject } from "react";
import { decideFromConsole } from "@/app/(console)/actions/review-actions";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import { carryDecisionOutcome, nextUndecided } from "@/components/actions/decide-and-advance";
import type { DecisionMessage } from "@/components/actions/decision-outcome";
import { signApprovalReceipt } from "@/components/actions/sign-approval-receipt";
import type { Verdict } from "@/components/actions/use-armed-verdict";

function recordedText(status: string, approvals: number, quorum: number): string {
  if (status === "pending") return `Your approval is recorded: ${approvals} of ${quorum} approvals. Another reviewer must approve before it can run.`;
  if (status === "approved") return `Approved (${approvals} of ${quorum}).`;
  return "Rejected. The reason goes back to the agent.";
}

/**
 * Sends the decision form: the verdict of the button that submitted it, the note, the hash shown,
 * a passkey's signature when the policy asks for one, and the time since the page was shown. Then
 * on to the next action waiting for this reviewer, the outcome carried there.
 */
export function useSubmitDecision({ signatureRequired, signatureUnavailable = null, staysWhenApproved, noteRef, setMessage, onRecorded }: {
  signatureRequired: boolean;
  /** Why no passkey can sign on this page (it is open where passkeys do not work): approving says so instead. */
  signatureUnavailable?: string | null;
  /** Approving leaves work on this page: no advancing then. */
  staysWhenApproved: boolean;
  noteRef: RefObject<HTMLTextAreaElement | null>;
  setMessage: (message: DecisionMessage | null) => void;
  /** The decision was recorded and the page stays. */
  onRecorded: () => void;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState<Verdict | null>(null);
  const [, startTransition] = useTransition();
  // When this reviewer was first shown the arguments: the decision reports the time since.
  const [shownAt] = useState(() => performance.now());

  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (window.top !== window.self) return;
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const form = new FormData(event.currentTarget);
    const verdict = submitter?.value === "reject" ? "reject" : "approve";
    const note = String(form.get("note") ?? "").trim();
    if (verdict === "approve" && signatureRequired && signatureUnavailable) {
      setMessage({ tone: "error", text: signatureUnavailable });
      return;
    }
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
      const signed = verdict === "approve" && signatureRequired ? await signApprovalReceipt(actionId, hash) : undefined;
      if (signed && !signed.ok) {
        setMessage({ tone: "error", text: signed.error });
        return setBusy(null);
      }
      const result = await decideFromConsole({ actionId, payloadHash: hash, verdict, note: note || undefined, assertion: signed?.assertion, viewedMs });
      setBusy(null);
      if (!result.ok) {
        setMessage({ tone: "error", text: decisionErrorMessage(result.error) });
        return;
      }
      const { status, approvals, quorum } = result.data;
      const text = recordedText(status, approvals, quorum);
      // Decide and advance: on to the next action waiting for this reviewer, the outcome shown there.
      const next = staysWhenApproved && status === "approved" ? null : await nextUndecided(actionId);
      if (next) {
        carryDecisionOutcome(`${text} This is the next action waiting for you.`);
        router.push(`/actions/${next}`);
        return;
      }
      onRecorded();
      setMessage({ tone: "ok", text });
      router.refresh();
    });
  };

  return { busy, submit };
}
