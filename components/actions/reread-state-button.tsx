"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { rereadStateFromConsole } from "@/app/(console)/actions/reread-actions";
import { reportReread } from "@/components/actions/reread-outcome";
import { buttonClass } from "@/components/ui/button";
import { decisionErrorMessage } from "@/lib/review/decision-messages";

/**
 * Offered instead of Approve when the state an action rests on changed since request: makes
 * revision n+1 over the state as it is now (judged afresh), which reviewers then decide. What it
 * came to is shown by <RereadOutcome> where the caller puts it: once it worked, the refresh that
 * follows replaces this button with Approve.
 */
export function RereadStateButton({
  actionId,
  revision,
  payloadHash,
  label,
  compact = false,
}: { actionId: string; revision: number; payloadHash: string; label: string; compact?: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const reread = () =>
    startTransition(async () => {
      const result = await rereadStateFromConsole({ actionId, payloadHash });
      if (!result.ok) {
        reportReread(actionId, { tone: "error", text: decisionErrorMessage(result.error), revision });
        return;
      }
      reportReread(actionId, {
        tone: "ok",
        revision: result.data.revision,
        text:
          result.data.status === "denied"
            ? `Revision ${result.data.revision} is refused: it no longer fits the state now.`
            : `Revision ${result.data.revision} rests on the state now; decide on it.`,
      });
      router.refresh();
    });
  return (
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
  );
}
