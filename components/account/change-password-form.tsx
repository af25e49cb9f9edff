"use client";

import { useRef, useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/button";
import type { ActionResult } from "@/lib/server/boundary";

type ChangePassword = (raw: unknown) => Promise<ActionResult<{ sessionsEnded: number }>>;

const inputClass = "mt-1 w-full rounded-md border border-slate-300 px-3 py-2";

export function ChangePasswordForm({ minLength, changePassword }: { minLength: number; changePassword: ChangePassword }) {
  const form = useRef<HTMLFormElement>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [pending, startTransition] = useTransition();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setMessage(null);
    startTransition(async () => {
      const result = await changePassword({
        currentPassword: String(data.get("currentPassword") ?? ""),
        newPassword: String(data.get("newPassword") ?? ""),
        repeatPassword: String(data.get("repeatPassword") ?? ""),
      });
      if (!result.ok) {
        setMessage({ ok: false, text: result.error.message });
        return;
      }
      form.current?.reset();
      const ended = result.data.sessionsEnded;
      setMessage({
        ok: true,
        text: `Password changed. ${ended === 0 ? "You had no other sessions." : `${ended} other ${ended === 1 ? "session was" : "sessions were"} signed out.`}`,
      });
    });
  }

  return (
    <form ref={form} onSubmit={submit} aria-label="Change password" className="max-w-sm space-y-4" noValidate>
      <div>
        <label htmlFor="currentPassword" className="block font-medium">Current password</label>
        <input id="currentPassword" name="currentPassword" type="password" autoComplete="current-password" required className={inputClass} />
      </div>
      <div>
        <label htmlFor="newPassword" className="block font-medium">New password</label>
        <input id="newPassword" name="newPassword" type="password" autoComplete="new-password" required minLength={minLength}
          aria-describedby="newPassword-hint" className={inputClass} />
        <p id="newPassword-hint" className="mt-1 text-sm text-slate-600">At least {minLength} characters. A few unrelated words make a good one.</p>
      </div>
      <div>
        <label htmlFor="repeatPassword" className="block font-medium">Repeat new password</label>
        <input id="repeatPassword" name="repeatPassword" type="password" autoComplete="new-password" required className={inputClass} />
      </div>
      {message && (
        <p role={message.ok ? "status" : "alert"}
          className={`rounded-md border px-3 py-2 ${message.ok ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-red-200 bg-red-50 text-red-800"}`}>
          {message.text}
        </p>
      )}
      <button type="submit" disabled={pending} className={buttonClass.primary}>
        {pending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
