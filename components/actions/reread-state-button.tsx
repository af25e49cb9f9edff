"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { rereadStateFromConsole } from "@/app/(console)/actions/reread-actions";
import { buttonClass } from "@/components/ui/button";
import { decisionErrorMessage } from "@/lib/review/decision-messages";

/**
 * Offered instead of Approve when the state an action rests on changed since request: makes
 * revision n+1 over the state as it is now (judged afresh), which reviewers then decide.
 */
export function RereadStateButton({ actionId, payloadHash, label, compact = false }: { actionId: string; payloadHash: string; label: string; compact?: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const reread = () =>
    startTransition(async () => {
      const result = await rereadStateFromConsole({ actionId, payloadHash });
      if (!result.ok) {
        setMessage({ tone: "error", text: decisionErrorMessage(result.error) });
        return;
      }
      setMessage({
        tone: "ok",
        text:
          result.data.status === "denied"
            ? `Revision ${result.data.revision} is refused: it no longer fits the state now.`
            : `Revision ${result.data.revision} rests on the state now; decide on it.`,
      });
      router.refresh();
    });
  return (
    <span className="inline-flex flex-col items-end gap-1">
      <button
        type="button"
        className={`${buttonClass.primary} ${compact ? "px-2 py-0.5 text-xs" : ""}`}
        onClick={reread}
        disabled={pending}
        aria-busy={pending}
        aria-label={compact ? `Re-read state of ${label}` : undefined}
      >
        {pending ? "Re-reading…" : "Re-read state"}
      </button>
      {message && (
        <span role={message.tone === "error" ? "alert" : "status"} className={`max-w-64 text-xs ${message.tone === "error" ? "text-red-800" : "text-emerald-900"}`}>
          {message.text}
        </span>
      )}
    </span>
  );
}
