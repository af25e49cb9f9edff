"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";

export function SignInForm({
  callbackUrl,
  initialError,
  messages,
  oidc,
}: {
  callbackUrl: string;
  initialError: string | null;
  messages: Record<string, string>;
  oidc: boolean;
}) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    if (!result || result.error) {
      setError(messages[result?.error ?? ""] ?? messages.invalid);
      setPending(false);
      return;
    }
    window.location.assign(callbackUrl);
  }

  return (
    <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <div>
          <label htmlFor="email" className="block font-medium">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required
            className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2" />
        </div>
        <div>
          <label htmlFor="password" className="block font-medium">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required
            className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2" />
        </div>
        {error && (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-800">{error}</p>
        )}
        <button type="submit" disabled={pending}
          className="w-full rounded-md bg-indigo-700 px-3 py-2 font-medium text-white hover:bg-indigo-800 disabled:opacity-60">
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {oidc && (
        <button type="button" onClick={() => signIn("oidc", { callbackUrl })}
          className="mt-3 w-full rounded-md border border-slate-300 px-3 py-2 font-medium hover:bg-slate-50">
          Sign in with single sign-on
        </button>
      )}
    </div>
  );
}
