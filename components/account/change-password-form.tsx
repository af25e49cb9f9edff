"use client";

import { useRef } from "react";
import { buttonClass } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { useServerAction } from "@/components/ui/use-server-action";
import type { ActionResult } from "@/lib/server/boundary";

type ChangePassword = (raw: unknown) => Promise<ActionResult<{ sessionsEnded: number }>>;

const inputClass = "mt-1 w-full rounded-md border border-slate-300 px-3 py-2";

export function ChangePasswordForm({ minLength, changePassword }: { minLength: number; changePassword: ChangePassword }) {
  const form = useRef<HTMLFormElement>(null);
  const { message, pending, run } = useServerAction();

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const field = (name: string) => String(data.get(name) ?? "");
    run(() => changePassword({ currentPassword: field("currentPassword"), newPassword: field("newPassword"), repeatPassword: field("repeatPassword") }), ({ sessionsEnded: ended }) => {
      form.current?.reset();
      return `Password changed. ${ended === 0 ? "You had no other sessions." : `${ended} other ${ended === 1 ? "session was" : "sessions were"} signed out.`}`;
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
      <FormMessage message={message} />
      <button type="submit" disabled={pending} className={buttonClass.primary}>
        {pending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
