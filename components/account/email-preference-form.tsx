"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { useServerAction } from "@/components/ui/use-server-action";
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
  const { message, pending, run } = useServerAction();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run(() => setEmailMode({ mode: chosen }), (data) =>
      `Saved: ${data.mode === "digest" ? `a digest every ${digestMinutes} minutes` : "an email per action"} in ${tenantName}.`);
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
      <FormMessage message={message} />
      <button type="submit" disabled={pending} className={buttonClass.primary}>
        {pending ? "Saving…" : "Save email preference"}
      </button>
    </form>
  );
}
