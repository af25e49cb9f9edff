import type { Metadata } from "next";
import Link from "next/link";
import { forbidden, redirect } from "next/navigation";
import { requirePageMember } from "@/lib/server/acting-member";

export const metadata: Metadata = { title: "Switch organisation?" };

/** Where a link from another site to `/t/<slug>` lands: the switch happens only if the person asks. */
export default async function ConfirmTenantSwitchPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const member = await requirePageMember(undefined, `/t/${slug}/confirm`);
  const target = member.memberships.find((m) => m.slug === slug);
  if (!target) forbidden();
  if (target.tenantId === member.tenant.id) redirect("/");

  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4">
      <h1 className="text-2xl font-semibold tracking-tight">Switch to {target.name}?</h1>
      <p className="mt-2 text-slate-600">
        A link from another site asked to open Countersign in {target.name}. You are working in {member.tenant.name}.
      </p>
      <div className="mt-6 flex flex-wrap gap-3">
        {/* A plain link: following it is a same-origin navigation, which /t/<slug> accepts. */}
        <a href={`/t/${encodeURIComponent(target.slug)}`}
          className="rounded-md bg-indigo-700 px-4 py-2 font-medium text-white hover:bg-indigo-800">
          Switch to {target.name}
        </a>
        <Link href="/" className="rounded-md border border-slate-300 px-4 py-2 font-medium hover:bg-slate-50">
          Stay in {member.tenant.name}
        </Link>
      </div>
    </main>
  );
}
