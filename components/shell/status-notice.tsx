import Link from "next/link";

const NOTICES = {
  forbidden: {
    code: "403 · Not allowed",
    codeClass: "text-red-700",
    title: "Your roles do not allow this page",
    text: "This part of Countersign belongs to another role in this organisation, or to an organisation you are not a member of. Ask an administrator if you need access.",
    signOut: true,
  },
  "not-found": {
    code: "404 · Not found",
    codeClass: "text-slate-500",
    title: "Nothing here",
    text: "It may have been removed, or it belongs to another organisation.",
    signOut: false,
  },
} as const;

/**
 * The 403 and 404 notices. Outside the console they are the page's main landmark; inside it
 * (app/(console)/forbidden.tsx, not-found.tsx) they render within the console's own <main>, so
 * `landmark` is false there and a page never has two.
 */
export function StatusNotice({ kind, landmark }: { kind: keyof typeof NOTICES; landmark: boolean }) {
  const notice = NOTICES[kind];
  const Wrapper = landmark ? "main" : "div";
  return (
    <Wrapper className="mx-auto max-w-lg px-4 py-24">
      <p className={`font-mono text-xs font-semibold uppercase tracking-wider ${notice.codeClass}`}>{notice.code}</p>
      <h1 className="mt-2 text-2xl font-semibold">{notice.title}</h1>
      <p className="mt-2 text-slate-600">{notice.text}</p>
      <div className="mt-6 flex gap-4">
        <Link href="/" className="font-medium text-indigo-700 underline">Go to your start page</Link>
        {notice.signOut && <Link href="/signout" className="font-medium text-slate-700 underline">Sign in as someone else</Link>}
      </div>
    </Wrapper>
  );
}
