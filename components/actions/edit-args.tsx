"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { editFromConsole } from "@/app/(console)/actions/review-actions";
import { buttonClass } from "@/components/ui/button";
import { decisionErrorMessage } from "@/lib/review/decision-messages";

/**
 * Edit the arguments as JSON. Saving creates a new revision with its own approval (votes on the
 * old one become void); the server parses strictly and validates against the tool's schema.
 */
export function EditArgs({ actionId, payloadHash, args, isCode }: { actionId: string; payloadHash: string; args: unknown; isCode: boolean }) {
  const router = useRouter();
  const fieldId = useId();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  if (!open) {
    return (
      <div className="space-y-2">
        <button type="button" data-shortcut="edit" className={buttonClass.secondary} onClick={() => { setOpen(true); setDone(null); }}>Edit</button>
        {done && <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-[0.85rem] text-emerald-900">{done}</p>}
      </div>
    );
  }
  return (
    <form
      className="space-y-2"
      aria-label="Edit arguments"
      onSubmit={(event) => {
        event.preventDefault();
        const argsJson = String(new FormData(event.currentTarget).get("args") ?? "");
        setError(null);
        startTransition(async () => {
          const result = await editFromConsole({ actionId, payloadHash, argsJson });
          if (!result.ok) {
            setError(decisionErrorMessage(result.error));
            return;
          }
          setOpen(false);
          setDone(`Revision ${result.data.revision} created (${result.data.status}). It needs its own approval, by a reviewer other than you.`);
          router.refresh();
        });
      }}
    >
      <label htmlFor={fieldId} className="block font-medium">Arguments (JSON{isCode ? ": code and language" : ""})</label>
      <textarea
        id={fieldId}
        name="args"
        rows={Math.min(24, JSON.stringify(args, null, 2).split("\n").length + 2)}
        defaultValue={JSON.stringify(args, null, 2)}
        spellCheck={false}
        autoFocus
        className="w-full rounded-md border border-slate-300 px-2 py-1.5 font-mono text-[0.8rem] focus:border-indigo-600"
      />
      <p className="text-xs text-slate-600">Saving creates a new revision. Approvals of the current revision become void.</p>
      {error && <p role="alert" className="whitespace-pre-wrap rounded-md bg-red-50 px-3 py-2 text-[0.85rem] text-red-800">{error}</p>}
      <div className="flex gap-2">
        <button type="submit" className={buttonClass.primary} disabled={pending} aria-busy={pending}>{pending ? "Saving…" : "Save as new revision"}</button>
        <button type="button" className={buttonClass.secondary} onClick={() => { setOpen(false); setError(null); }}>Cancel</button>
      </div>
    </form>
  );
}
