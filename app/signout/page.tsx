import type { Metadata } from "next";
import { SignOutButton } from "@/components/auth/sign-out-button";

export const metadata: Metadata = { title: "Sign out" };

export default function SignOutPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold tracking-tight">Sign out of Countersign?</h1>
      <p className="mt-1 text-slate-600">Pending reviews stay in the queue for you or another reviewer.</p>
      <SignOutButton />
    </main>
  );
}
