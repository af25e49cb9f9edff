import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { PageHeader } from "@/components/shell/page-header";

export const metadata: Metadata = { title: "Action" };

export default async function ActionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const member = await requirePageMember("actions:read", `/actions/${id}`);
  if (!z.uuid().safeParse(id).success) notFound();
  const action = await getDb().action.findFirst({
    where: { id, tenantId: member.tenant.id },
    select: { tool: true, status: true, reason: true },
  });
  if (!action) notFound();
  return <PageHeader title={action.tool} description={`Status: ${action.status}`} />;
}
