"use client";

import { useEffect, useState, type RefObject } from "react";
import { isTyping } from "@/components/actions/decide-and-advance";

export type Verdict = "approve" | "reject";

/**
 * The verdict chosen with a or r, which puts the cursor in the note; Cmd/Ctrl+Enter there confirms
 * it and Esc cancels it. Approve is not offered while approving is blocked.
 */
export function useArmedVerdict({ canDecide, approveBlocked, noteRef, formRef, onNothingArmed }: {
  canDecide: boolean;
  approveBlocked: boolean;
  noteRef: RefObject<HTMLTextAreaElement | null>;
  formRef: RefObject<HTMLFormElement | null>;
  /** Cmd/Ctrl+Enter was pressed before a verdict was chosen. */
  onNothingArmed: () => void;
}) {
  const [armed, setArmed] = useState<Verdict | null>(null);

  useEffect(() => {
    if (!canDecide) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target) || document.querySelector("dialog[open]")) return;
      if (event.key !== "a" && event.key !== "r") return;
      if (event.key === "a" && approveBlocked) return;
      event.preventDefault();
      setArmed(event.key === "a" ? "approve" : "reject");
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
