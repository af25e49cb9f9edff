"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type RefObject } from "react";
import { decideFromConsole } from "@/app/(console)/actions/review-actions";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import { carryDecisionOutcome, nextUndecided } from "@/components/actions/decide-and-advance";
import type { DecisionMessage } from "@/components/actions/decision-outcome";
import { signApprovalReceipt } from "@/components/actions/sign-approval-receipt";
import type { Verdict } from "@/components/actions/use-armed-verdict";
import type { GrantTerms } from "@/lib/grants/grant-terms";

function recordedText(status: string, approvals: number, quorum: number): string {
  if (status === "pending") return `Your approval is recorded: ${approvals} of ${quorum} approvals. Another reviewer must approve before it can run.`;
  if (status === "approved") return `Approved (${approvals} of ${quorum}).`;
  return "Rejected. The reason goes back to the agent.";
}

/** What the reviewer is told of the grant they approved with the action. */
function grantText(asked: GrantTerms | undefined, status: string, made: { id: string } | null | undefined): string {
  if (!asked) return "";
  if (made) return " The standing grant for calls like it is in force (listed on the admin page and its key).";
  if (status === "approved") return " No standing grant was made: the other approvals asked for other terms, or agents are stopped.";
  return " Calls like it are granted when the approvals that complete the quorum all ask for the same grant.";
}

/** What a decision came to: recorded, or refused with the words shown and the refusal's code. */
export type DecideResult = { ok: true } | { ok: false; code: string | null; text: string };

/**
 * Sends a decision: the verdict, the note, the hash shown, a passkey's signature when the policy
 * asks for one, and the time since the page was shown. Then on to the next action waiting for this
 * reviewer, the outcome carried there. `submit` sends the form (a rejection: Approve confirms in
 * a dialog first and calls `decide` itself).
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

  const refuse = (text: string, code: string | null = null): DecideResult => {
    setMessage({ tone: "error", text });
    return { ok: false, code, text };
  };

  const decide = (input: { actionId: string; payloadHash: string; verdict: Verdict; note: string; grant?: GrantTerms }): Promise<DecideResult> => {
    const { actionId, payloadHash: hash, verdict } = input;
    const note = input.note.trim();
    if (window.top !== window.self) return Promise.resolve({ ok: false, code: null, text: "" });
    if (verdict === "approve" && signatureRequired && signatureUnavailable) return Promise.resolve(refuse(signatureUnavailable));
    if (verdict === "reject" && !note) {
      noteRef.current?.focus();
      return Promise.resolve(refuse("Write a reason for the rejection; it is sent back to the agent.", "reason_required"));
    }
    setBusy(verdict);
    setMessage(null);
    return new Promise((resolve) => {
      startTransition(async () => {
        const viewedMs = Math.round(performance.now() - shownAt);
        const signed = verdict === "approve" && signatureRequired ? await signApprovalReceipt(actionId, hash, input.grant) : undefined;
        if (signed && !signed.ok) {
          setBusy(null);
          return resolve(refuse(signed.error));
        }
        const result = await decideFromConsole({ actionId, payloadHash: hash, verdict, note: note || undefined, assertion: signed?.assertion, viewedMs, grant: input.grant });
        setBusy(null);
        if (!result.ok) return resolve(refuse(decisionErrorMessage(result.error), result.error.code));
        const { status, approvals, quorum } = result.data;
        const text = recordedText(status, approvals, quorum) + grantText(input.grant, status, result.data.grant);
        // Decide and advance: on to the next action waiting for this reviewer, the outcome shown there.
        const next = staysWhenApproved && status === "approved" ? null : await nextUndecided(actionId);
        resolve({ ok: true });
        if (next) {
          carryDecisionOutcome(`${text} This is the next action waiting for you.`);
          router.push(`/actions/${next}`);
          return;
        }
        onRecorded();
        setMessage({ tone: "ok", text });
        router.refresh();
      });
    });
  };

  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void decide({ actionId: String(form.get("actionId")), payloadHash: String(form.get("payloadHash")), verdict: "reject", note: String(form.get("note") ?? "") });
  };

  return { busy, decide, submit };
}
