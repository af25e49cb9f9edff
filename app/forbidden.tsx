import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-lg px-4 py-24">
      <p className="font-mono text-xs font-semibold uppercase tracking-wider text-red-700">403 · Not allowed</p>
      <h1 className="mt-2 text-2xl font-semibold">Your roles do not allow this page</h1>
      <p className="mt-2 text-slate-600">
        This part of Countersign belongs to another role in this organisation, or to an organisation you are not a
        member of. Ask an administrator if you need access.
      </p>
      <div className="mt-6 flex gap-4">
        <Link href="/" className="font-medium text-indigo-700 underline">Go to your start page</Link>
        <Link href="/signout" className="font-medium text-slate-700 underline">Sign in as someone else</Link>
      </div>
    </main>
  );
}
