import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-lg px-4 py-24">
      <p className="font-mono text-xs font-semibold uppercase tracking-wider text-slate-500">404 · Not found</p>
      <h1 className="mt-2 text-2xl font-semibold">Nothing here</h1>
      <p className="mt-2 text-slate-600">It may have been removed, or it belongs to another organisation.</p>
      <Link href="/" className="mt-6 inline-block font-medium text-indigo-700 underline">Go to your start page</Link>
    </main>
  );
}
