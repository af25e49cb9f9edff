"use client";

import { useEffect, useRef, useState, type RefObject } from "react";
import { isTyping } from "@/components/actions/decide-and-advance";

export type Verdict = "approve" | "reject";

/**
 * The keys of the decision form: a opens the approval's confirmation (as the queue's a does); r
 * chooses reject and puts the cursor in the reason, where Cmd/Ctrl+Enter confirms it and Esc
 * cancels it. a does nothing while approving is blocked.
 */
export function useArmedVerdict({ canDecide, approveBlocked, noteRef, formRef, onApprove, onNothingArmed }: {
  canDecide: boolean;
  approveBlocked: boolean;
  noteRef: RefObject<HTMLTextAreaElement | null>;
  formRef: RefObject<HTMLFormElement | null>;
  /** a was pressed: open the approval's confirmation. */
  onApprove: () => void;
  /** Cmd/Ctrl+Enter was pressed before a verdict was chosen. */
  onNothingArmed: () => void;
}) {
  const [armed, setArmed] = useState<"reject" | null>(null);
  // The latest callback, for the listener registered once per state of the form.
  const onApproveRef = useRef(onApprove);
  useEffect(() => {
    onApproveRef.current = onApprove;
  });

  useEffect(() => {
    if (!canDecide) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target) || document.querySelector("dialog[open]")) return;
      if (event.key !== "a" && event.key !== "r") return;
      if (event.key === "a" && approveBlocked) return;
      event.preventDefault();
      if (event.key === "a") {
        setArmed(null);
        onApproveRef.current();
        return;
      }
      setArmed("reject");
      noteRef.current?.scrollIntoView({ block: "nearest" });
      noteRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [canDecide, approveBlocked, noteRef]);

  const onNoteKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape" && armed) {
      setArmed(null);
      return;
    }
    if (event.key !== "Enter" || !(event.metaKey || event.ctrlKey)) return;
    event.preventDefault();
    const button = formRef.current?.querySelector<HTMLButtonElement>(`button[value="${armed}"]`);
    if (armed && button) formRef.current?.requestSubmit(button);
    else onNothingArmed();
  };

  return { armed, disarm: () => setArmed(null), onNoteKeyDown };
}
