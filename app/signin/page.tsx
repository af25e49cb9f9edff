import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { oidcEnabled } from "@/lib/auth/auth-options";
import { safeCallbackPath } from "@/lib/auth/safe-callback-path";
import { SIGN_IN_MESSAGES } from "@/lib/auth/sign-in";
import { getActingMember } from "@/lib/server/acting-member";
import { SignInForm } from "@/components/auth/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

function messageFor(error: string | string[] | undefined): string | null {
  if (error === undefined) return null;
  // next-auth's name for a callback that threw: for single sign-on, a sign-in that could not be recorded.
  if (error === "Callback") return SIGN_IN_MESSAGES.unrecorded;
  return typeof error === "string" && Object.hasOwn(SIGN_IN_MESSAGES, error)
    ? SIGN_IN_MESSAGES[error as keyof typeof SIGN_IN_MESSAGES]
    : SIGN_IN_MESSAGES.invalid;
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string | string[]; error?: string | string[] }>;
}) {
  const { callbackUrl, error } = await searchParams;
  // Only same-origin paths: an open redirect after sign-in would be a phishing aid.
  const next = safeCallbackPath(callbackUrl);
  const actor = await getActingMember();
  if (actor.ok) redirect(next);

  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold tracking-tight">Countersign</h1>
      <p className="mt-1 text-slate-600">Sign in to review and follow agent actions.</p>
      <SignInForm callbackUrl={next} initialError={messageFor(error)} messages={SIGN_IN_MESSAGES} oidc={oidcEnabled()} />
    </main>
  );
}
