"use client";

import { signOut } from "next-auth/react";

export function SignOutButton() {
  return (
    <button type="button" onClick={() => signOut({ callbackUrl: "/signin" })}
      className="mt-6 rounded-md bg-slate-900 px-4 py-2 font-medium text-white hover:bg-slate-700">
      Sign out
    </button>
  );
}
