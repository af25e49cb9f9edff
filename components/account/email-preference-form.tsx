"use client";

import { useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

type Mode = "immediate" | "digest";
type SetEmailMode = (raw: unknown) => Promise<ActionResult<{ mode: Mode; changed: boolean }>>;

const CHOICES: Array<{ mode: Mode; label: string }> = [
  { mode: "immediate", label: "Immediately" },
  { mode: "digest", label: "Digest" },
];

/** The member's reviewer-email preference in the current organisation. */
export function EmailPreferenceForm({ mode, tenantName, digestMinutes, setEmailMode }: {
  mode: Mode; tenantName: string; digestMinutes: number; setEmailMode: SetEmailMode;
}) {
  const [chosen, setChosen] = useState<Mode>(mode);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMessage(null);
    startTransition(async () => {
      const result = await setEmailMode({ mode: chosen });
      if (!result.ok) {
        setMessage({ ok: false, text: result.error.message });
        return;
      }
      setMessage({ ok: true, text: `Saved: ${result.data.mode === "digest" ? `a digest every ${digestMinutes} minutes` : "an email per action"} in ${tenantName}.` });
    });
  }

  return (
    <form onSubmit={submit} aria-label="Reviewer emails" className="max-w-md space-y-3">
      <fieldset>
        <legend className="font-medium">Email me about actions waiting for my review in {tenantName}</legend>
        {CHOICES.map((choice) => (
          <label key={choice.mode} className="mt-2 flex items-start gap-2">
            <input type="radio" name="emailMode" value={choice.mode} checked={chosen === choice.mode} onChange={() => setChosen(choice.mode)} className="mt-1" />
            <span>
              <span className="block">{choice.label}</span>
              <span className="block text-sm text-slate-600">{choice.mode === "digest" ? `One email every ${digestMinutes} minutes listing the actions still waiting for you.` : "One email per action, as soon as it waits for you."}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {message && (
        <p role={message.ok ? "status" : "alert"}
          className={`rounded-md border px-3 py-2 ${message.ok ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-red-200 bg-red-50 text-red-800"}`}>
          {message.text}
        </p>
      )}
      <button type="submit" disabled={pending} className={buttonClass.primary}>
        {pending ? "Saving…" : "Save email preference"}
      </button>
    </form>
  );
}
