import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { readPolicyVersion } from "@/lib/policy/save-policy";
import { PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Policy version" };

/** One saved policy version, as it was saved: the admin page lists versions and links here. */
export default async function PolicyVersionPage({ params }: { params: Promise<{ version: string }> }) {
  const { version: text } = await params;
  const member = await requirePageMember("admin:manage", `/admin/policy/${encodeURIComponent(text)}`);
  // A malformed number and a version that does not exist look the same: not found.
  const version = /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : null;
  if (version === null) notFound();
  const found = await readPolicyVersion(getDb(), member.tenant.id, version);
  if (!found) notFound();
  return (
    <>
      <PageHeader title={`Policy version ${found.version}`} description={`As saved in ${member.tenant.name}. The newest version is in force; edit it on the admin page.`}>
        <Link href="/admin#policy" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Back to admin</Link>
      </PageHeader>
      <pre tabIndex={0} aria-label={`Policy version ${found.version}`} className="overflow-auto rounded-lg bg-white p-3 font-mono text-xs ring-1 ring-slate-200">
        {JSON.stringify(found.document, null, 2)}
      </pre>
    </>
  );
}
